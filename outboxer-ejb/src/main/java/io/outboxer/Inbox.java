package io.outboxer;

/**
 * The consumer's side of at-least-once delivery: tells a message seen for the first time from a
 * duplicate. Inject it with {@code @Inject Inbox inbox;} in the consuming application (an MDB, a
 * Kafka consumer) and call {@link #claim} in the transaction that processes the message:
 *
 * <pre>{@code
 * public void onMessage(Message m) {            // container transaction, REQUIRED
 *   if (inbox.claim(m.getStringProperty("OutboxerOutbox"), m.getStringProperty("OutboxerGroup"),
 *       m.getLongProperty("OutboxerId"))) {
 *     // process: the claim commits or rolls back with this work
 *   }                                           // else: a duplicate, already processed
 * }
 * }</pre>
 *
 * <p>It keeps, per outbox and group, the last message id processed, in the table {@code
 * outboxer_inbox} of the consuming application's database ({@code jdbc/outboxer}, created with
 * Outboxer's schema). A group's messages reach the consumer in id order, so a message is new only
 * when its id is greater than the last one processed: a redelivered message, or an older one after
 * a newer, is a duplicate. The claim is one conditional upsert, so of two consumers racing on one
 * group (two MDB instances, a Kafka rebalance) only one sees a given id as new; the other waits for
 * the first one's transaction and then sees a duplicate, or sees the message as new if that
 * transaction rolled back. docs/guarantees.md gives the conditions under which ids arrive in order.
 *
 * <p>Refusals are {@link OutboxException}s: {@code OUTBOXER-5001} no active transaction, {@code
 * OUTBOXER-5002} no group key (ungrouped messages arrive in any order, so a last id cannot tell a
 * duplicate), {@code OUTBOXER-5003} a missing or too long outbox name or group key, or an id below
 * 1.
 */
public interface Inbox {

  /**
   * Claims message {@code id} of {@code groupKey} in {@code outbox} in the caller's transaction.
   *
   * @return true when the message is new: its id is now the group's last, and stays so if the
   *     transaction commits; false when it is a duplicate (its id is not greater than the last
   *     processed), in which case nothing is written
   */
  boolean claim(String outbox, String groupKey, long id);
}
