package io.outboxer.it.relay;

import io.outboxer.spi.Envelope;
import java.util.ArrayList;
import java.util.List;

/** Every attempt the scripted relays made, in the order they made them. */
public final class Journal {

  /** One attempt: the message as handed over, whether it was failed, and when (server clock). */
  public record Attempt(Envelope envelope, boolean failed, long atMillis) {
    public long id() {
      return envelope.id();
    }

    public String group() {
      return envelope.groupKey();
    }
  }

  private static final List<Attempt> ATTEMPTS = new ArrayList<>();

  private Journal() {}

  static synchronized void record(Envelope e, boolean failed) {
    ATTEMPTS.add(new Attempt(e, failed, System.currentTimeMillis()));
  }

  /** The attempts of messages whose group starts with {@code prefix}, in order. */
  public static synchronized List<Attempt> ofGroupsStartingWith(String prefix) {
    return ATTEMPTS.stream()
        .filter(a -> a.group() != null && a.group().startsWith(prefix))
        .toList();
  }

  /** The attempts of the given outbox, in order. */
  public static synchronized List<Attempt> ofOutbox(String outbox) {
    return ATTEMPTS.stream().filter(a -> a.envelope().outbox().equals(outbox)).toList();
  }

  /** The successful deliveries among {@code attempts}. */
  public static List<Attempt> delivered(List<Attempt> attempts) {
    return attempts.stream().filter(a -> !a.failed()).toList();
  }
}
