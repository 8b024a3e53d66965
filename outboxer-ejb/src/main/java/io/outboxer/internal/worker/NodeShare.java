package io.outboxer.internal.worker;

import io.outboxer.internal.rules.FairShare;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many leases of one outbox this node holds, against its {@link FairShare}: the workers of the
 * outbox's partitions count their leases here, so that the node never takes more than its share and
 * hands back what is above it.
 */
final class NodeShare {

  private final int partitions;
  private final AtomicInteger held = new AtomicInteger();
  private volatile FairShare share;

  NodeShare(int partitions) {
    this.partitions = partitions;
    this.share = FairShare.alone(partitions);
  }

  /** Sets how many nodes deliver the outbox now, this one included. */
  void nodes(int nodes) {
    share = new FairShare(partitions, nodes);
  }

  /** The most partitions this node may hold now. */
  int share() {
    return share.share();
  }

  /** The leases this node holds. */
  int held() {
    return held.get();
  }

  /** Counts one more lease if the share allows it; false when the node holds its share. */
  boolean tryTake() {
    while (true) {
      int h = held.get();
      if (!share.mayTake(h)) {
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
      if (!share.overShare(h)) {
        return false;
      }
      if (held.compareAndSet(h, h - 1)) {
        return true;
      }
    }
  }
}
