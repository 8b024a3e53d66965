package io.outboxer;

/**
 * A message the application publishes through {@link Outbox#publish(OutboxMessage)}.
 *
 * <p>Implementations are plain data classes that JSON-B can serialize (public fields or getters).
 * The outbox they go to is named by {@link Outboxed}; without the annotation it is {@code
 * "default"}.
 *
 * <p>{@link #groupKey()} decides ordering: messages with the same key are delivered in the order
 * they were published, a failing message holds back only the messages of its own key, and a message
 * whose key is {@code null} is unordered and can neither block nor be blocked. Choose the smallest
 * thing whose events must stay in sequence, usually the aggregate ({@code "order:42"}).
 */
public interface OutboxMessage {

  /**
   * The ordering key of this message, or {@code null} (the default) for an unordered message.
   *
   * <p>At most 500 characters. The key must not change between the publications of one entity's
   * events: it decides the partition the message is stored in.
   */
  default String groupKey() {
    return null;
  }
}
