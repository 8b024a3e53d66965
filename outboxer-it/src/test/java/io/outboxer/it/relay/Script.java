package io.outboxer.it.relay;

import io.outboxer.spi.Envelope;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** Which messages the scripted relay of each outbox fails; by default none. */
public final class Script {

  private static final Map<String, Predicate<Envelope>> FAILING = new ConcurrentHashMap<>();

  private Script() {}

  public static void fail(String outbox, Predicate<Envelope> which) {
    FAILING.put(outbox, which);
  }

  public static void failNothing(String outbox) {
    FAILING.remove(outbox);
  }

  static Predicate<Envelope> failing(String outbox) {
    return FAILING.getOrDefault(outbox, e -> false);
  }
}
