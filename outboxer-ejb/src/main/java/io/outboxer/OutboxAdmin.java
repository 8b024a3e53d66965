package io.outboxer;

import java.util.List;

/**
 * Operators' view of and hand on an outbox. Inject it with {@code @Inject OutboxAdmin admin;}; the
 * admin REST API under {@code /outboxer/admin} and the dashboard call it.
 *
 * <p>Each call is one transaction of its own, or joins the caller's. A repair wakes the workers of
 * the partitions it touched once its transaction commits, so they do not wait for their next poll.
 * A repair holds its partitions' lease rows until its transaction ends (ADR 0014): a caller that
 * joins several repairs in one transaction keeps those partitions' workers waiting until it
 * commits, and on PostgreSQL, where it may lock the rows out of partition order, it can deadlock
 * with a concurrent repair of the whole outbox (the database then fails one of the two
 * transactions). Calling each repair in a transaction of its own avoids both.
 *
 * <p>Every refusal is an {@link OutboxException}: {@code OUTBOXER-2005} for an outbox that is not
 * configured, {@code OUTBOXER-4001} for an id that is not in the outbox, {@code OUTBOXER-4002} for
 * {@code retryDead} of a message that is not dead, {@code OUTBOXER-4003} for a page size out of
 * range, {@code OUTBOXER-4004} for a missing group key.
 */
public interface OutboxAdmin {

  /** The largest page {@link #messages} returns. */
  int MAX_PAGE = 500;

  /** The configured outboxes, by name. */
  List<String> outboxes();

  /** How many messages the outbox holds, in total and per partition. */
  OutboxCounts counts(String outbox);

  /** Who holds each partition's lease, for every partition that has a lease row. */
  List<PartitionLease> leases(String outbox);

  /**
   * A page of the outbox's messages in one state, in id order: those with an id above {@code
   * afterId}, at most {@code limit} (1 to {@link #MAX_PAGE}). The next page starts after the last
   * id of this one.
   */
  List<MessageDetails> messages(String outbox, MessageState state, long afterId, int limit);

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
   * Revives the dead messages of one group, as {@link #retryDead(String)} does.
   *
   * @return how many messages were revived
   */
  int retryDeadGroup(String outbox, String groupKey);

  /**
   * Removes a pending or dead message for good. When it was the failing head of its group, the
   * group moves on.
   */
  void discard(String outbox, long id);

  /**
   * Gets a group moving now: its failing message, waiting for its next attempt, is due at once (its
   * attempts are kept), and messages held with no failing message ahead of them are released.
   *
   * @return how many messages became due
   */
  int releaseGroup(String outbox, String groupKey);
}
