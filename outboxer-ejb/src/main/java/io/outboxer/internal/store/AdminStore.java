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

  /** One message of an outbox, whatever its state. */
  Optional<StoredMessage> find(String outbox, long id);

  /** The partitions that hold messages of a group. */
  List<Integer> partitionsOf(String outbox, String groupKey);

  /**
   * Makes every dead message of {@code outbox} ready again with its attempts reset, raising the
   * repair count of all its partitions (ADR 0014).
   *
   * @return how many were revived
   */
  int reviveDead(String outbox);

  /** Makes a dead message ready again with its attempts reset, raising its partition's count. */
  void reviveDead(StoredMessage message);

  /**
   * Makes the dead messages of a group ready again with their attempts reset, raising the count of
   * {@code partitions}, where the group's rows lie.
   *
   * @return how many were revived
   */
  int reviveDeadGroup(String outbox, String groupKey, List<Integer> partitions);

  /**
   * Deletes a message; with {@code releaseGroup}, its group's held rows become ready (it was the
   * group's failing head).
   */
  void discard(StoredMessage message, boolean releaseGroup);

  /**
   * Within one partition, makes a group's message waiting for its retry due now, or, when the group
   * has no failing message, releases its held rows.
   *
   * @return how many messages became due
   */
  int releaseGroup(String outbox, int partition, String groupKey);
}
