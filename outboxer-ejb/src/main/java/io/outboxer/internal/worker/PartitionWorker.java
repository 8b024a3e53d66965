package io.outboxer.internal.worker;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.rules.BatchOutcome;
import io.outboxer.internal.rules.Completion;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.internal.rules.LeaseTerms;
import io.outboxer.internal.rules.ReadBatch;
import io.outboxer.internal.rules.ReadStart;
import io.outboxer.internal.rules.RetryPolicy;
import io.outboxer.internal.store.Lease;
import io.outboxer.internal.store.LeaseStore;
import io.outboxer.internal.store.MessageStore;
import io.outboxer.internal.telemetry.DeliveryEvents;
import io.outboxer.internal.telemetry.DeliveryEvents.LeaseChange;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import io.outboxer.spi.Relay;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Delivers one partition of one outbox while this server holds the partition's lease. Each run
 * drains the partition batch by batch (read, relay, complete) until a read found and delivered all
 * that was ready, or the lease is gone. Runs never overlap: a wake-up that arrives during a run
 * makes the run go round once more.
 */
public final class PartitionWorker implements Runnable {

  private static final Logger LOG = Logger.getLogger(PartitionWorker.class.getName());

  private final OutboxConfig outbox;
  private final RetryPolicy retryPolicy;
  private final int partition;
  private final String owner;
  private final LeaseTerms terms;
  private final MessageStore messages;
  private final LeaseStore leases;
  private final Relay relay;
  private final NodeShare share;
  private final DeliveryEvents events;
  private final LongSupplier clock;
  private final RelayOutage outage;

  private final ReentrantLock running = new ReentrantLock();
  private final AtomicBoolean wakeRequested = new AtomicBoolean();
  private volatile boolean stopped;

  /**
   * When the worker last made progress, by {@link #clock}: a batch read or a completion answered,
   * or a run ended, whatever its outcome. A worker that holds no lease still ends a run at every
   * poll; one that is stuck (in a wait that does not end, or never run by a starved executor) does
   * not.
   */
  private volatile long progressAt;

  private Lease lease;
  private Deadline renewal;

  /**
   * Until when the lease is this worker's by the database's count, less a margin
   * (LeaseTerms#heldFor), timed from before the call that took or last renewed it: no relay call
   * runs past it.
   */
  private Deadline heldUntil;

  /** Where the next batch read may start (ADR 0014); the first row after taking the lease. */
  private ReadStart start = ReadStart.FIRST_ROW;

  /**
   * @param owner this node's name in the lease rows
   * @param events hears of relay calls, recorded outcomes and lease changes, for the metrics
   * @param clock the monotonic clock, in nanoseconds, that times lease renewals and pauses
   * @param outages hears when the relay of this partition becomes unavailable and available again
   */
  PartitionWorker(
      OutboxConfig outbox,
      int partition,
      String owner,
      LeaseTerms terms,
      MessageStore messages,
      LeaseStore leases,
      Relay relay,
      NodeShare share,
      DeliveryEvents events,
      LongSupplier clock,
      RelayOutage.Listener outages) {
    this.outbox = outbox;
    this.retryPolicy = outbox.retryPolicy();
    this.partition = partition;
    this.owner = owner;
    this.terms = terms;
    this.messages = messages;
    this.leases = leases;
    this.relay = relay;
    this.share = share;
    this.events = events;
    this.clock = clock;
    this.outage =
        new RelayOutage(
            "outbox " + outbox.name() + " partition " + partition, retryPolicy, clock, outages);
    this.progressAt = clock.getAsLong();
  }

  /**
   * Records a wake-up: true when the caller is to start a run for it, false when a run under way
   * will serve it. The request is recorded before the lock is looked at, and a run looks for one
   * after it let the lock go, so a run ending meanwhile either sees the request or left the lock
   * free for this look to see (the flag and the lock's state are both volatile). A commit that
   * wakes a busy partition costs no task then, nor one that wakes a stopped worker.
   */
  public boolean wake() {
    wakeRequested.set(true);
    return !stopped && !running.isLocked();
  }

  /**
   * Drains the partition, or, when a run is under way, makes it go round once more. The request is
   * recorded before the lock is tried, and a run looks for one again after it let the lock go: a
   * wake-up that arrives while a run ends, after its last look and before its unlock (or while a
   * drain fails), finds the lock taken and is served by that run's next look instead of waiting for
   * the poll. A failed drain is tried again only for such a wake-up, never in a loop of its own.
   */
  @Override
  public void run() {
    wakeRequested.set(true);
    while (!stopped && wakeRequested.get() && running.tryLock()) {
      try {
        while (!stopped && wakeRequested.getAndSet(false)) {
          drain();
        }
      } catch (RuntimeException e) {
        // A read or completion that failed may have committed all the same (a connection lost
        // while the commit was answered), having made rows ready below the start.
        start = ReadStart.FIRST_ROW;
        LOG.log(
            Level.WARNING,
            "OUTBOXER-3001 worker of outbox "
                + outbox.name()
                + " partition "
                + partition
                + " failed",
            e);
      } catch (Error e) {
        // Thrown out of the run, it would end the partition's poll for good (the executor cancels
        // a periodic task that throws) while this node still counted the lease as its own.
        start = ReadStart.FIRST_ROW;
        LOG.log(
            Level.SEVERE,
            "OUTBOXER-3015 worker of outbox "
                + outbox.name()
                + " partition "
                + partition
                + " failed with an error; it gives its lease back and runs again at the next poll",
            e);
        letLeaseGo();
      } finally {
        progressAt = clock.getAsLong();
        running.unlock();
      }
    }
  }

  /**
   * How long the worker has made no progress (see {@link #progressAt}); zero once it is stopped,
   * since a stopped worker has nothing more to do.
   */
  Duration silentFor() {
    return stopped ? Duration.ZERO : Duration.ofNanos(clock.getAsLong() - progressAt);
  }

  /**
   * After a full batch, before its completion: statistics taken while the outbox was idle count a
   * burst as no row, and the completion's delete would then walk the backlog (ADR 0017). Taken
   * again here, they plan this batch's completion; where a failure keeps them stale, the batch is
   * delivered all the same.
   */
  private void refreshStatistics() {
    if (!messages.keepsStatistics()) {
      return;
    }
    try {
      messages.refreshStatistics();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "OUTBOXER-3017 taking outboxer_message's statistics again failed", e);
    }
  }

  private void drain() {
    while (!stopped && holdsLease() && !outage.pausing()) {
      // One deadline per batch, started before the read: the relay gets what the read left of it,
      // and never more than the lease has left (a renewal that took long left it less).
      Deadline deadline = heldUntil.within(terms.callBudget());
      Optional<ReadBatch> read =
          messages.nextBatch(
              lease,
              outbox.ordering(),
              outbox.batchSize(),
              outbox.waitsForWriters(),
              start,
              wakeRequested::get);
      progressAt = clock.getAsLong();
      if (read.isEmpty()) {
        lostLease("before a batch; nothing was read");
        return;
      }
      start = read.get().start();
      List<Envelope> batch = read.get().envelopes();
      if (batch.isEmpty() && read.get().full()) {
        continue; // the read held rows behind blocked heads and ended its transaction: read on
      }
      if (batch.isEmpty() || deadline.passed()) {
        return; // nothing due, or the read used the call's time up: the next run reads again
      }
      if (batch.size() >= outbox.batchSize()) {
        refreshStatistics();
      }
      DeliveryReport report;
      long called = clock.getAsLong();
      Duration given = deadline.remaining();
      try {
        report = relay.deliver(batch, given);
      } catch (RuntimeException e) {
        events.relayCalled(Duration.ofNanos(clock.getAsLong() - called));
        outage.failed(e); // nothing of the batch is known: it stays pending, no attempt charged
        return;
      }
      Duration took = Duration.ofNanos(clock.getAsLong() - called);
      events.relayCalled(took);
      if (deadline.passed()) {
        overran(took, given);
        return;
      }
      outage.answered();
      BatchOutcome outcome = BatchOutcome.decide(batch, report);
      Completion completion = retryPolicy.complete(outcome);
      boolean recorded = messages.complete(lease, completion);
      progressAt = clock.getAsLong();
      if (recorded) {
        start = read.get().startAfter(completion);
        events.completed(
            completion.delete().size(),
            completion.failures().size(),
            (int) completion.failures().stream().filter(Completion.Failure::dead).count());
      } else {
        lostLease(
            "during a batch; its outcome was not recorded and the batch will be delivered again by"
                + " the new owner");
        return;
      }
      if (outcome.confirmed().isEmpty() && outcome.failed().isEmpty()) {
        return; // the relay reported nothing: try again at the next wake-up or poll
      }
      if (completion.deletesAll(batch.size()) && !read.get().full()) {
        // The read found every ready row and all went out: a read now would find nothing that a
        // wake-up (a commit of this server) or the poll (retries, other servers) would not
        // announce.
        return;
      }
    }
  }

  /**
   * A relay call that returned after the batch's deadline: the lease may have lapsed meanwhile, and
   * another server may be delivering the partition, so its report is ignored. Nothing is recorded:
   * the batch stays pending with no attempt charged (what the destination received meanwhile is
   * delivered again), and the partition pauses as after a failed call.
   */
  private void overran(Duration took, Duration given) {
    String what =
        "relay call of outbox "
            + outbox.name()
            + " partition "
            + partition
            + " returned after its deadline: it took "
            + took.toMillis()
            + " ms of the "
            + given.toMillis()
            + " ms it was given (the batch's budget is "
            + terms.callBudget().toMillis()
            + " ms, from before the read)";
    LOG.warning(
        "OUTBOXER-3011 "
            + what
            + "; its report is ignored, the batch stays pending and no attempt is charged");
    outage.failed(new IllegalStateException(what));
  }

  /**
   * True when this worker holds a lease with at least two thirds of its time left, renewing or
   * taking it first when needed; false after handing the lease back because this node holds more
   * than its fair share. The database decides validity; the local clock only decides when to renew,
   * and the completion of every batch is fenced by the lease's epoch.
   */
  private boolean holdsLease() {
    // Timed from before the database call: the lease runs from no earlier than this.
    Deadline nextRenewal = Deadline.in(terms.renewAfter(), clock);
    Deadline nextHeldUntil = Deadline.in(terms.heldFor(), clock);
    if (lease != null && share.tryHandBack()) {
      Lease handedBack = lease;
      lease = null;
      leases.release(handedBack);
      events.lease(LeaseChange.HANDED_BACK);
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
    if (lease != null && !renewal.passed()) {
      return true;
    }
    if (lease != null && leases.renew(lease, terms.ttl())) {
      renewal = nextRenewal;
      heldUntil = nextHeldUntil;
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
      events.lease(LeaseChange.LOST);
      dropLease();
    }
    if (!share.tryTake()) {
      return false;
    }
    try {
      lease = leases.acquire(outbox.name(), partition, owner, terms.ttl()).orElse(null);
      renewal = nextRenewal;
      heldUntil = nextHeldUntil;
      start = ReadStart.FIRST_ROW; // whoever held the partition meanwhile may have left rows below
    } finally {
      if (lease == null) {
        share.giveBack();
      }
    }
    if (lease != null) {
      events.lease(LeaseChange.TAKEN);
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

  private void lostLease(String when) {
    LOG.warning(
        "OUTBOXER-3003 lease of outbox "
            + outbox.name()
            + " partition "
            + partition
            + " epoch "
            + lease.epoch()
            + " was lost "
            + when);
    events.lease(LeaseChange.LOST);
    dropLease();
  }

  /** Gives the lease back after a run ended by an {@link Error}, whatever the database says. */
  private void letLeaseGo() {
    if (lease == null) {
      return;
    }
    Lease held = lease;
    dropLease();
    events.lease(LeaseChange.HANDED_BACK);
    try {
      leases.release(held);
    } catch (RuntimeException | Error e) {
      LOG.log(
          Level.WARNING,
          "OUTBOXER-3006 could not give back the lease of outbox "
              + outbox.name()
              + " partition "
              + partition
              + "; it expires by itself",
          e);
    }
  }

  private void dropLease() {
    lease = null;
    share.giveBack();
  }

  /**
   * Stops after the current batch and gives the lease back, waiting at most {@code wait} for a run
   * under way; false when that run had not ended by then (its lease then expires by itself).
   */
  boolean stop(Duration wait) {
    stopped = true;
    try {
      if (!running.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        return false;
      }
      try {
        if (lease != null) {
          Lease released = lease;
          dropLease();
          leases.release(released);
          events.lease(LeaseChange.HANDED_BACK);
        }
      } finally {
        running.unlock();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "OUTBOXER-3006 could not release a lease at shutdown", e);
    }
    return true;
  }

  /** The lease this worker holds, or null (for tests). */
  Lease lease() {
    return lease;
  }
}
