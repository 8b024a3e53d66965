package io.outboxer.internal.rules;

/**
 * How many partitions of one outbox a node may hold: its fair share, {@code ceil(partitions /
 * nodes)}, of the nodes that deliver the outbox (those whose heartbeat is younger than the lease
 * ttl). A node takes a lease only within its share and hands one back, after its batch, while it
 * holds more; so a node that joins gets partitions, and the partitions of one that left or died are
 * taken by the others. The shares of all nodes add up to at least the partition count, so every
 * partition finds a worker.
 *
 * @param partitions the outbox's partition count
 * @param nodes the nodes delivering the outbox, this one included (none heard yet counts as one)
 */
public record FairShare(int partitions, int nodes) {

  /** The share of a node that has not heard of any other yet: every partition. */
  public static FairShare alone(int partitions) {
    return new FairShare(partitions, 1);
  }

  /** The most partitions one node may hold. */
  public int share() {
    int n = Math.max(1, nodes);
    return (partitions + n - 1) / n;
  }

  /** True when a node holding {@code held} leases may take one more. */
  public boolean mayTake(int held) {
    return held < share();
  }

  /** True when a node holding {@code held} leases holds more than its share. */
  public boolean overShare(int held) {
    return held > share();
  }
}
