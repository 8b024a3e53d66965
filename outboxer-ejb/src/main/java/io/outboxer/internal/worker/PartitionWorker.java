package io.outboxer.internal.worker;

import io.outboxer.internal.config.OutboxSettings;
import io.outboxer.internal.store.JpaOutboxStore;
import io.outboxer.internal.store.Lease;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import io.outboxer.spi.Relay;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Delivers one partition of one outbox while this server holds the partition's lease. Each run
 * drains the partition batch by batch (read, relay, complete) until it is empty or the lease is
 * gone. Runs never overlap: a wake-up that arrives during a run makes the run go round once more.
 */
public final class PartitionWorker implements Runnable {

  private static final Logger LOG = Logger.getLogger(PartitionWorker.class.getName());

  private final OutboxSettings outbox;
  private final int partition;
  private final String owner;
  private final Duration leaseTtl;
  private final JpaOutboxStore store;
  private final Relay relay;
  private final FairShare share;

  private final ReentrantLock running = new ReentrantLock();
  private final AtomicBoolean wakeRequested = new AtomicBoolean();
  private volatile boolean stopped;
  private Lease lease;
  private long leaseRenewedAt;

  public PartitionWorker(
      OutboxSettings outbox,
      int partition,
      String owner,
      Duration leaseTtl,
      JpaOutboxStore store,
      Relay relay,
      FairShare share) {
    this.outbox = outbox;
    this.partition = partition;
    this.owner = owner;
    this.leaseTtl = leaseTtl;
    this.store = store;
    this.relay = relay;
    this.share = share;
  }

  @Override
  public void run() {
    if (!running.tryLock()) {
      wakeRequested.set(true);
      return;
    }
    try {
      do {
        wakeRequested.set(false);
        drain();
      } while (wakeRequested.get() && !stopped);
    } catch (RuntimeException e) {
      LOG.log(
          Level.WARNING,
          "OUTBOXER-3001 worker of outbox " + outbox.name() + " partition " + partition + " failed",
          e);
    } finally {
      running.unlock();
    }
  }

  private void drain() {
    while (!stopped && holdsLease()) {
      List<Envelope> batch = store.nextBatch(outbox, partition);
      if (batch.isEmpty()) {
        return;
      }
      DeliveryReport report;
      try {
        report = relay.deliver(batch);
      } catch (RuntimeException e) {
        LOG.log(
            Level.WARNING,
            "OUTBOXER-3002 relay of outbox " + outbox.name() + " failed for a whole batch",
            e);
        report = BatchOutcome.allFailed(batch, "relay failed: " + e);
      }
      BatchOutcome outcome = BatchOutcome.decide(batch, report);
      if (!store.complete(outbox, lease, outcome)) {
        LOG.warning(
            "OUTBOXER-3003 lease of outbox "
                + outbox.name()
                + " partition "
                + partition
                + " was lost during a batch; its outcome was not recorded and the batch will be"
                + " delivered again by the new owner");
        dropLease();
        return;
      }
      if (outcome.confirmed().isEmpty() && outcome.failed().isEmpty()) {
        return; // the relay reported nothing: try again at the next wake-up or poll
      }
    }
  }

  /**
   * True when this worker holds a lease with at least two thirds of its time left, renewing or
   * taking it first when needed; false after handing the lease back because this node holds more
   * than its {@link FairShare}. The database decides validity; the local clock only decides when to
   * renew, and the completion of every batch is fenced by the lease's epoch.
   */
  private boolean holdsLease() {
    long now = System.nanoTime();
    if (lease != null && share.tryHandBack()) {
      Lease handedBack = lease;
      lease = null;
      store.release(handedBack);
      LOG.info(
          "OUTBOXER-3007 "
              + owner
              + " handed outbox "
              + outbox.name()
              + " partition "
              + partition
              + " back: this node's fair share is "
              + share.share()
              + " partitions");
      return false;
    }
    long renewAfter = leaseTtl.toNanos() / 3;
    if (lease != null && now - leaseRenewedAt < renewAfter) {
      return true;
    }
    if (lease != null && store.renew(lease, leaseTtl)) {
      leaseRenewedAt = now;
      return true;
    }
    if (lease != null) {
      LOG.warning(
          "OUTBOXER-3004 lease of outbox "
              + outbox.name()
              + " partition "
              + partition
              + " epoch "
              + lease.epoch()
              + " expired before it was renewed");
      dropLease();
    }
    if (!share.tryTake()) {
      return false;
    }
    try {
      lease = store.acquire(outbox.name(), partition, owner, leaseTtl).orElse(null);
    } finally {
      if (lease == null) {
        share.giveBack();
      }
    }
    if (lease != null) {
      leaseRenewedAt = now;
      LOG.info(
          "OUTBOXER-3005 "
              + owner
              + " took outbox "
              + outbox.name()
              + " partition "
              + partition
              + " with lease epoch "
              + lease.epoch());
    }
    return lease != null;
  }

  private void dropLease() {
    lease = null;
    share.giveBack();
  }

  /** Stops after the current batch and gives the lease back. */
  public void stop(Duration wait) {
    stopped = true;
    try {
      if (running.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        try {
          if (lease != null) {
            Lease released = lease;
            dropLease();
            store.release(released);
          }
        } finally {
          running.unlock();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "OUTBOXER-3006 could not release a lease at shutdown", e);
    }
  }

  public String outboxName() {
    return outbox.name();
  }

  public int partition() {
    return partition;
  }
}
