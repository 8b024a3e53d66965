package io.outboxer.internal.store;

import io.outboxer.MessageDetails;
import io.outboxer.PartitionLease;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Operators' reads and repairs, in the caller's transaction. */
public interface AdminStore {

  /** Per partition and state, how many messages the outbox holds. */
  Map<Integer, Map<RowState, Long>> countByPartition(String outbox);

  /** The outbox's lease rows, by partition. */
  List<PartitionLease> leases(String outbox);

  /** Up to {@code limit} messages of the outbox in {@code state} with ids above {@code afterId}. */
  List<MessageDetails> page(String outbox, RowState state, long afterId, int limit);

  /**
   * One message of an outbox, whatever its state, read for a repair of it: first raises the repair
   * count of its partition (ADR 0014), which waits for the partition's batch read or completion in
   * progress, so the message is read as that batch left it, and makes this transaction SQLite's
   * writer before it reads. A repair of one message starts here.
   */
  Optional<StoredMessage> findForRepair(String outbox, long id);

  /**
   * The partition that holds a group's messages (the one its key is hashed to, over the partition
   * count the outbox's rows were stored with), for a repair of the group: first raises its repair
   * count, as {@link #findForRepair} does. A repair of a group starts here.
   */
  int partitionForRepair(String outbox, String groupKey);

  /**
   * Makes every dead message of {@code outbox} ready again with its attempts reset, raising the
   * repair count of all its partitions (ADR 0014).
   *
   * @return how many were revived
   */
  int reviveDead(String outbox);

  /** Makes a dead message, found for repair, ready again with its attempts reset. */
  void reviveDead(StoredMessage message);

  /**
   * Makes the dead messages of a group ready again with their attempts reset, after {@link
   * #partitionForRepair}.
   *
   * @return how many were revived
   */
  int reviveDeadGroup(String outbox, String groupKey);

  /**
   * Deletes a message found for repair; with {@code releaseGroup}, its group's held rows become
   * ready (it was the group's failing head).
   */
  void discard(StoredMessage message, boolean releaseGroup);

  /**
   * Within the partition {@link #partitionForRepair} gave, makes a group's message waiting for its
   * retry due now, or, when the group has no failing message, releases its held rows.
   *
   * @return how many messages became due
   */
  int releaseGroup(String outbox, int partition, String groupKey);
}
