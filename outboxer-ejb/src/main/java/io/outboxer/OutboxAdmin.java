package io.outboxer;

/**
 * Operators' view of and hand on an outbox. Inject it with {@code @Inject OutboxAdmin admin;}.
 *
 * <p>Each call is one transaction of its own, or joins the caller's. Every refusal is an {@link
 * OutboxException}: {@code OUTBOXER-2005} for an outbox that is not configured, {@code
 * OUTBOXER-4001} for an id that is not in the outbox, {@code OUTBOXER-4002} for {@code retryDead}
 * of a message that is not dead.
 */
public interface OutboxAdmin {

  /** How many messages the outbox holds, in total and per partition. */
  OutboxCounts counts(String outbox);

  /**
   * Revives every dead message of the outbox: each keeps its original id, its attempts start again
   * at zero, and it is due at once. Its group may have moved on in the meantime, so a revived
   * message goes out after messages that were published behind it.
   *
   * @return how many messages were revived
   */
  int retryDead(String outbox);

  /** Revives one dead message, as {@link #retryDead(String)} does. */
  void retryDead(String outbox, long id);

  /**
   * Removes a pending or dead message for good. When it was the failing head of its group, the
   * group moves on.
   */
  void discard(String outbox, long id);
}
