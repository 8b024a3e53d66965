package io.outboxer.testkit;

import io.outboxer.Outbox;
import io.outboxer.OutboxException;
import io.outboxer.OutboxMessage;
import io.outboxer.internal.publish.Publication;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * An {@link Outbox} for unit tests of code that publishes: it keeps each message it accepted, in
 * order, as the real one would store it (outbox, group key, type, the payload JSON-B writes), and
 * refuses what the real one refuses, with the same {@link OutboxException}: a null message, a group
 * key over 500 characters, a message JSON-B cannot write, and, when the outboxes were named, a
 * message of another outbox. It needs no transaction, no database and no server.
 *
 * <pre>{@code
 * RecordingOutbox outbox = new RecordingOutbox("orders");
 * new Payments(outbox).pay("order-42");
 * assertThat(outbox.published()).extracting(Published::groupKey).containsExactly("order-42");
 * }</pre>
 */
public final class RecordingOutbox implements Outbox, AutoCloseable {

  /**
   * A message the outbox accepted.
   *
   * @param id its id, from 1, in the order of publishing
   * @param outbox the outbox its type names ({@code default} without {@code @Outboxed})
   * @param groupKey its group key, or null
   * @param type its class name
   * @param payload the JSON a relay would deliver
   * @param message the message itself
   */
  public record Published(
      long id,
      String outbox,
      String groupKey,
      String type,
      String payload,
      OutboxMessage message) {}

  private final Set<String> outboxes;
  private final Jsonb jsonb = JsonbBuilder.create();
  private final List<Published> published = new ArrayList<>();

  /**
   * @param outboxes the outboxes the application configures; none: any outbox is accepted
   */
  public RecordingOutbox(String... outboxes) {
    this.outboxes = new TreeSet<>(List.of(outboxes));
  }

  @Override
  public synchronized long publish(OutboxMessage message) {
    Publication.typeOf(message);
    String outbox = Publication.outboxOf(message.getClass());
    if (!outboxes.isEmpty() && !outboxes.contains(outbox)) {
      throw new OutboxException(
          "OUTBOXER-2005 unknown outbox '"
              + outbox
              + "': configure it with outboxer.outbox."
              + outbox
              + ".relay (configured outboxes: "
              + outboxes
              + ")");
    }
    Publication publication = Publication.of(message, jsonb);
    long id = published.size() + 1L;
    published.add(
        new Published(
            id,
            publication.outbox(),
            publication.groupKey(),
            publication.type(),
            publication.payload(),
            message));
    return id;
  }

  /** Every message accepted so far, in the order of publishing. */
  public synchronized List<Published> published() {
    return List.copyOf(published);
  }

  /** The messages accepted so far into {@code outbox}, in order. */
  public synchronized List<Published> publishedTo(String outbox) {
    return published.stream().filter(p -> p.outbox().equals(outbox)).toList();
  }

  /** The messages of {@code type} accepted so far, in order. */
  public synchronized <T extends OutboxMessage> List<T> messages(Class<T> type) {
    return published.stream()
        .map(Published::message)
        .filter(type::isInstance)
        .map(type::cast)
        .toList();
  }

  /** Forgets what was published, as after a test; ids start from 1 again. */
  public synchronized void clear() {
    published.clear();
  }

  @Override
  public void close() throws Exception {
    jsonb.close();
  }
}
