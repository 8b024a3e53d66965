package io.outboxer;

/**
 * Publishes messages through the transactional outbox. Inject it with {@code @Inject Outbox
 * outbox;}.
 *
 * <p>{@link #publish(OutboxMessage)} writes the message as a row in the caller's JTA transaction
 * and never commits on its own: the message exists if and only if that transaction commits. After
 * the commit, the outbox's worker hands it to the configured relay and deletes the row once the
 * relay confirmed it.
 */
public interface Outbox {

  /**
   * Stores {@code message} in its outbox as part of the current JTA transaction.
   *
   * <p>Every check happens before anything is written: when this method throws an {@link
   * OutboxException}, no row was written and the caller's transaction is left as it was (the caller
   * decides whether to roll it back). A failure of the database itself marks the transaction for
   * rollback.
   *
   * @param message the message; its JSON-B form is the payload, its class name the type
   * @return the message's id: increasing in insertion order, carried by every delivered copy
   * @throws OutboxException {@code OUTBOXER-2001} when no JTA transaction is active on this thread,
   *     {@code OUTBOXER-2002} when {@code message} is null, {@code OUTBOXER-2003} when JSON-B
   *     cannot serialize it, {@code OUTBOXER-2004} when its group key is longer than 500
   *     characters, and {@code OUTBOXER-2005} when its outbox is not configured
   */
  long publish(OutboxMessage message);
}
