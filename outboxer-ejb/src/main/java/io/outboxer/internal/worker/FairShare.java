package io.outboxer.internal.worker;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many partitions of one outbox this node may hold: its fair share, {@code ceil(partitions /
 * nodes)}, of the nodes that deliver the outbox (those whose heartbeat is younger than the lease
 * ttl). A worker takes a lease only within the share and gives one back, after its batch, while the
 * node holds more; so a node that joins gets partitions, and the partitions of one that left or
 * died are taken by the others. The shares of all nodes add up to at least the partition count, so
 * every partition finds a worker.
 */
public final class FairShare {

  private final int partitions;
  private final AtomicInteger held = new AtomicInteger();
  private volatile int share;

  public FairShare(int partitions) {
    this.partitions = partitions;
    this.share = partitions;
  }

  /** The share of one node when {@code nodes} deliver {@code partitions} partitions. */
  static int of(int partitions, int nodes) {
    int n = Math.max(1, nodes);
    return (partitions + n - 1) / n;
  }

  /** Sets how many nodes deliver the outbox now, this one included. */
  public void nodes(int nodes) {
    share = of(partitions, nodes);
  }

  public int share() {
    return share;
  }

  public int held() {
    return held.get();
  }

  /** Counts one more lease if the share allows it; false when the node holds its share. */
  boolean tryTake() {
    while (true) {
      int h = held.get();
      if (h >= share) {
        return false;
      }
      if (held.compareAndSet(h, h + 1)) {
        return true;
      }
    }
  }

  /** Counts one lease fewer: it was lost, released at a stop, or could not be taken. */
  void giveBack() {
    held.decrementAndGet();
  }

  /** Counts one lease fewer if the node holds more than its share; the caller releases it. */
  boolean tryHandBack() {
    while (true) {
      int h = held.get();
      if (h <= share) {
        return false;
      }
      if (held.compareAndSet(h, h - 1)) {
        return true;
      }
    }
  }
}
