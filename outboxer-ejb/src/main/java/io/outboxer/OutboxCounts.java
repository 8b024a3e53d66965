package io.outboxer;

import java.util.List;

/**
 * What an outbox holds.
 *
 * @param outbox the outbox name
 * @param pending messages still to be delivered, including those waiting to be retried and those
 *     held behind a failing message of their group
 * @param retrying messages that failed and wait for their next attempt
 * @param held messages held behind a failing message of their group
 * @param dead messages that failed {@code max-attempts} times and wait for an operator
 * @param partitions the same counts per partition, for every configured partition
 */
public record OutboxCounts(
    String outbox,
    long pending,
    long retrying,
    long held,
    long dead,
    List<PartitionCounts> partitions) {

  /** The counts of one partition. */
  public record PartitionCounts(int partition, long pending, long retrying, long held, long dead) {}
}
