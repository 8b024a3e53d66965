package io.outboxer.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.TestOutboxes;
import io.outboxer.internal.rules.LeaseTerms;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.store.RowState;
import io.outboxer.internal.telemetry.DeliveryEvents;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import io.outboxer.spi.Relay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The worker against an in-memory store, a scripted relay and a clock the test moves. */
class PartitionWorkerTest {

  private static final LeaseTerms TERMS = new LeaseTerms(Duration.ofSeconds(30));
  private static final OutboxConfig OUTBOX = TestOutboxes.orders("scripted", Map.of());

  private final InMemoryStore store = new InMemoryStore();
  private final AtomicLong nanos = new AtomicLong();
  private final List<List<Long>> delivered = new ArrayList<>();
  private final List<String> outages = new ArrayList<>();
  private final List<String> events = new ArrayList<>();

  /** The worker's events as text, in the order they happened. */
  private final DeliveryEvents recorder =
      new DeliveryEvents() {
        @Override
        public void relayCalled(Duration took) {
          events.add("call " + took.toMillis() + "ms");
        }

        @Override
        public void completed(int delivered, int failed, int dead) {
          events.add("completed " + delivered + "/" + failed + "/" + dead);
        }

        @Override
        public void lease(LeaseChange change) {
          events.add("lease " + change);
        }
      };

  private final Relay confirmAll =
      batch -> {
        delivered.add(batch.stream().map(Envelope::id).toList());
        DeliveryReport.Builder report = DeliveryReport.builder();
        batch.forEach(e -> report.confirmed(e.id()));
        return report.build();
      };

  /** A relay that confirms every batch and adds the time it was given to {@code given}. */
  private Relay confirmingAndKeepingTheTimeGiven(List<Duration> given) {
    return new Relay() {
      @Override
      public DeliveryReport deliver(List<Envelope> batch) {
        throw new AssertionError("the engine passes the time left");
      }

      @Override
      public DeliveryReport deliver(List<Envelope> batch, Duration timeLeft) {
        given.add(timeLeft);
        return confirmAll.deliver(batch);
      }
    };
  }

  private PartitionWorker worker(int partition, Relay relay, NodeShare share) {
    return worker(OUTBOX, partition, relay, share);
  }

  private PartitionWorker worker(OutboxConfig outbox, int partition, Relay relay, NodeShare share) {
    return new PartitionWorker(
        outbox,
        partition,
        "node-a",
        TERMS,
        store,
        store,
        relay,
        share,
        recorder,
        nanos::get,
        outages::add);
  }

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
    store.advanceDatabaseClock(d);
  }

  @Test
  void aRunTakesTheLeaseAndDeliversThePartitionInIdOrderUntilItIsEmpty() {
    for (long id = 1; id <= 250; id++) {
      store.add(id, "g" + (id % 7));
    }
    PartitionWorker worker = worker(0, confirmAll, new NodeShare(1));

    worker.run();

    assertThat(store.owner(0)).isEqualTo("node-a");
    assertThat(delivered).extracting(List::size).containsExactly(100, 100, 50);
    assertThat(delivered.stream().flatMap(List::stream)).isSorted().hasSize(250);
    assertThat(store.rows).isEmpty();
  }

  @Test
  void eachFullBatchHasTheStatisticsTakenAgainWhereStaleAndAFailureThereDeliversItAllTheSame() {
    for (long id = 1; id <= 250; id++) {
      store.add(id, "g" + (id % 7));
    }
    store.refreshFailure = new IllegalStateException("must be owner of table outboxer_message");

    worker(0, confirmAll, new NodeShare(1)).run();

    assertThat(store.refreshes).as("after the two full batches, not the last").hasValue(2);
    assertThat(delivered).extracting(List::size).containsExactly(100, 100, 50);
    assertThat(store.rows).isEmpty();
  }

  @Test
  void aReadStartsPastABatchWhoseRowsWereAllDeletedAndFromTheFirstRowAfterOneThatLeftRows() {
    for (long id = 1; id <= 250; id++) {
      store.add(id, "g" + (id % 7));
    }
    Relay halfOfTheSecondBatch =
        batch -> {
          delivered.add(batch.stream().map(Envelope::id).toList());
          DeliveryReport.Builder report = DeliveryReport.builder();
          int confirmed = delivered.size() == 2 ? batch.size() / 2 : batch.size();
          batch.subList(0, confirmed).forEach(e -> report.confirmed(e.id()));
          return report.build();
        };

    worker(0, halfOfTheSecondBatch, new NodeShare(1)).run();

    assertThat(store.readsFrom).containsExactly(0L, 101L, 0L, 251L);
    assertThat(delivered).extracting(ids -> ids.get(0)).containsExactly(1L, 101L, 151L);
    assertThat(store.rows).isEmpty();
  }

  @Test
  void aBatchThatFoundEveryReadyRowEndsTheRunOnceAllOfItWentOut() {
    for (long id = 1; id <= 30; id++) {
      store.add(id, "g" + id);
    }

    worker(0, confirmAll, new NodeShare(1)).run();

    assertThat(delivered).containsExactly(LongStream.rangeClosed(1, 30).boxed().toList());
    assertThat(store.readsFrom).as("no read after the batch").containsExactly(0L);
    assertThat(store.rows).isEmpty();
  }

  @Test
  void aBatchThatFoundEveryReadyRowButFailedOneIsFollowedByAnotherRead() {
    for (long id = 1; id <= 30; id++) {
      store.add(id, "g" + id);
    }
    Relay refusesTheFirst =
        batch -> {
          delivered.add(batch.stream().map(Envelope::id).toList());
          DeliveryReport.Builder report = DeliveryReport.builder().failed(1, "refused");
          batch.subList(1, batch.size()).forEach(e -> report.confirmed(e.id()));
          return report.build();
        };

    worker(0, refusesTheFirst, new NodeShare(1)).run();

    assertThat(store.readsFrom).containsExactly(0L, 0L);
    assertThat(store.emptyReads).hasValue(1);
    assertThat(store.rows).containsOnlyKeys(1L);
  }

  @Test
  void aReadThatOnlyHeldRowsIsFollowedByAnotherInTheSameRun() {
    // 20 groups whose heads wait, more than a read leaves out, with 2,000 rows behind them: each
    // batch read holds ten reads' worth and ends its transaction with an empty batch.
    for (long id = 1; id <= 20; id++) {
      store.add(id, "g" + id);
      store.rows.get(id).state = RowState.RETRYING;
    }
    for (long id = 21; id <= 2020; id++) {
      store.add(id, "g" + (id % 20 + 1));
    }
    for (long id = 2021; id <= 2050; id++) {
      store.add(id, "h" + id);
    }

    worker(0, confirmAll, new NodeShare(1)).run();

    assertThat(store.readsFrom).containsExactly(0L, 1021L, 2021L);
    assertThat(delivered).containsExactly(LongStream.rangeClosed(2021, 2050).boxed().toList());
    assertThat(store.rows.values()).hasSize(2020).noneMatch(r -> r.state == RowState.READY);
  }

  @Test
  void aRowMadeReadyBelowTheStartIsReadOnceARepairRaisedTheCount() {
    for (long id = 1; id <= 100; id++) {
      store.add(id, "g");
    }
    PartitionWorker worker = worker(0, confirmAll, new NodeShare(1));
    worker.run();

    store.add(5, "g"); // made ready below the start without a repair: not looked for
    worker.run();
    assertThat(store.rows).containsOnlyKeys(5L);
    store.repair(); // as an operator's revive does, in the same transaction as the row
    worker.run();

    assertThat(store.readsFrom).containsExactly(0L, 101L, 101L, 0L);
    assertThat(delivered).last().isEqualTo(List.of(5L));
    assertThat(store.rows).isEmpty();
  }

  @Test
  void aWorkerThatTakesTheLeaseAgainReadsFromTheFirstRow() {
    for (long id = 1; id <= 100; id++) {
      store.add(id, "g");
    }
    PartitionWorker worker = worker(0, confirmAll, new NodeShare(1));
    worker.run();
    store.add(5, "g"); // left below the start by whoever held the partition meanwhile

    advance(TERMS.ttl());
    worker.run();

    assertThat(store.readsFrom).containsExactly(0L, 101L, 0L);
    assertThat(delivered).last().isEqualTo(List.of(5L));
  }

  @Test
  void aReadThatFailedIsFollowedByOneFromTheFirstRow() {
    for (long id = 1; id <= 100; id++) {
      store.add(id, "g");
    }
    PartitionWorker worker = worker(0, confirmAll, new NodeShare(1));
    worker.run();
    // A read that promoted a head below the start, committed, and failed as its commit was
    // answered.
    store.add(5, "g");
    store.onRead =
        () -> {
          store.onRead = () -> {};
          throw new IllegalStateException("connection lost during the commit");
        };

    worker.run();
    worker.run();

    assertThat(store.readsFrom).containsExactly(0L, 101L, 0L);
    assertThat(delivered).last().isEqualTo(List.of(5L));
  }

  @Test
  void theLeaseIsRenewedOnceAThirdOfItsTtlHasPassedAndNotBefore() {
    PartitionWorker worker = worker(0, confirmAll, new NodeShare(1));
    worker.run();
    long epoch = worker.lease().epoch();

    advance(Duration.ofSeconds(9));
    worker.run();
    assertThat(store.renewals).hasValue(0);

    advance(Duration.ofSeconds(1));
    worker.run();
    assertThat(store.renewals).hasValue(1);
    assertThat(worker.lease().epoch()).as("renewal keeps the epoch").isEqualTo(epoch);

    advance(Duration.ofSeconds(9));
    worker.run();
    assertThat(store.renewals).as("timed from the last renewal").hasValue(1);
    advance(Duration.ofSeconds(1));
    worker.run();
    assertThat(store.renewals).hasValue(2);
  }

  @Test
  void aNodeOverItsFairShareHandsALeaseBackBeforeItsNextBatch() {
    NodeShare share = new NodeShare(2);
    PartitionWorker first = worker(0, confirmAll, share);
    PartitionWorker second = worker(1, confirmAll, share);
    first.run();
    second.run();
    assertThat(share.held()).isEqualTo(2);

    share.nodes(2);
    store.add(1, "g");
    first.run();

    assertThat(store.owner(0)).as("handed back, free for the other node").isNull();
    assertThat(first.lease()).isNull();
    assertThat(share.held()).isEqualTo(1);
    assertThat(delivered).as("no batch after the hand-back").isEmpty();
    second.run();
    assertThat(store.owner(1)).isEqualTo("node-a");
    assertThat(delivered).containsExactly(List.of(1L));
  }

  @Test
  void aLeaseLostDuringABatchRecordsNothingAndIsLetGo() {
    store.add(1, "g");
    store.add(2, "h");
    NodeShare share = new NodeShare(1);
    Relay slow =
        batch -> {
          // The lease lapses in database time during the call, which returns within its budget by
          // this server's clock, and another node takes the partition meanwhile.
          store.advanceDatabaseClock(TERMS.ttl());
          store.acquire(OUTBOX.name(), 0, "node-b", TERMS.ttl());
          return DeliveryReport.builder().confirmed(1).failed(2, "refused").build();
        };
    PartitionWorker worker = worker(0, slow, share);

    worker.run();

    assertThat(store.completions).hasValue(1);
    assertThat(store.rows).containsOnlyKeys(1L, 2L);
    assertThat(store.rows.get(2L).attempts).as("no failure recorded").isZero();
    assertThat(worker.lease()).isNull();
    assertThat(share.held()).isZero();
    assertThat(store.owner(0)).isEqualTo("node-b");
  }

  @Test
  void eventsReportEachRelayCallsTimeTheRecordedOutcomesAndTheLeaseChanges() {
    store.add(1, "g");
    store.add(2, "h");
    store.add(3, "i");
    Relay confirmsOnlyOne =
        batch -> {
          advance(Duration.ofMillis(250));
          DeliveryReport.Builder report = DeliveryReport.builder().confirmed(1);
          batch.stream().filter(e -> e.id() != 1).forEach(e -> report.failed(e.id(), "refused"));
          return report.build();
        };
    PartitionWorker worker = worker(0, confirmsOnlyOne, new NodeShare(1));

    worker.run();
    worker.stop(Duration.ofSeconds(1));

    assertThat(events)
        .containsExactly("lease TAKEN", "call 250ms", "completed 1/2/0", "lease HANDED_BACK");
  }

  /** What {@code worker}'s logger recorded while it ran once. */
  private static List<LogRecord> logsOf(PartitionWorker worker) {
    List<LogRecord> logged = new ArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            logged.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger log = Logger.getLogger(PartitionWorker.class.getName());
    log.addHandler(handler);
    try {
      worker.run();
    } finally {
      log.removeHandler(handler);
    }
    return logged;
  }

  /** A relay whose call confirms its batch only once the test lets it answer. */
  private final class StuckRelay implements Relay {
    private final CountDownLatch called = new CountDownLatch(1);
    private final CountDownLatch answer = new CountDownLatch(1);

    @Override
    public DeliveryReport deliver(List<Envelope> batch) {
      called.countDown();
      try {
        answer.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return confirmAll.deliver(batch);
    }

    void awaitCalled() throws InterruptedException {
      assertThat(called.await(10, TimeUnit.SECONDS)).as("the relay called").isTrue();
    }

    void answer() {
      answer.countDown();
    }
  }

  @Test
  void aWorkerStuckInARelayCallMakesNoProgressUntilTheCallReturns() throws Exception {
    store.add(1, "g");
    StuckRelay stuck = new StuckRelay();
    PartitionWorker worker = worker(0, stuck, new NodeShare(1));
    Thread run = new Thread(worker);
    run.start();
    stuck.awaitCalled();

    advance(Duration.ofMinutes(3));
    Duration silentWhileStuck = worker.silentFor();
    stuck.answer();
    run.join(10_000);

    assertThat(silentWhileStuck).isEqualTo(Duration.ofMinutes(3));
    assertThat(worker.silentFor()).as("once the run ended").isZero();
  }

  @Test
  void anIdleWorkerMakesProgressAtEveryRunAndAStoppedOneIsNeverSilent() {
    PartitionWorker worker = worker(0, confirmAll, new NodeShare(1));
    advance(Duration.ofMinutes(3));
    assertThat(worker.silentFor()).isEqualTo(Duration.ofMinutes(3));

    worker.run();
    assertThat(worker.silentFor()).isZero();

    advance(Duration.ofMinutes(3));
    worker.stop(Duration.ofSeconds(1));
    assertThat(worker.silentFor()).isZero();
  }

  @Test
  void stoppingGivesUpOnARunThatDoesNotEndWithinItsWaitAndKeepsTheLease() throws Exception {
    store.add(1, "g");
    StuckRelay stuck = new StuckRelay();
    PartitionWorker worker = worker(0, stuck, new NodeShare(1));
    Thread run = new Thread(worker);
    run.start();
    stuck.awaitCalled();

    long before = System.nanoTime();
    boolean stopped = worker.stop(Duration.ofMillis(200));
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
    stuck.answer();
    run.join(10_000);

    assertThat(stopped).isFalse();
    assertThat(waitedMillis).isBetween(200L, 5_000L);
    assertThat(store.owner(0)).as("the lease, left to expire").isEqualTo("node-a");
    assertThat(worker.stop(Duration.ofSeconds(1))).isTrue();
    assertThat(store.owner(0)).as("given back once the run ended").isNull();
  }

  @Test
  void aRunEndedByAnErrorIsLoggedGivesItsLeaseBackAndTheNextRunDeliversAgain() {
    store.add(1, "g");
    store.add(2, "h");
    NodeShare share = new NodeShare(1);
    AtomicLong calls = new AtomicLong();
    Relay errsOnce =
        batch -> {
          if (calls.incrementAndGet() == 1) {
            throw new NoClassDefFoundError("io/example/Missing");
          }
          return confirmAll.deliver(batch);
        };
    PartitionWorker worker = worker(0, errsOnce, share);
    List<LogRecord> logged = logsOf(worker);

    assertThat(logged)
        .filteredOn(r -> r.getLevel() == Level.SEVERE)
        .extracting(LogRecord::getMessage)
        .singleElement()
        .asString()
        .startsWith("OUTBOXER-3015 worker of outbox orders partition 0 failed with an error");
    assertThat(worker.lease()).isNull();
    assertThat(share.held()).isZero();
    assertThat(store.owner(0)).as("the lease, given back in the database").isNull();
    assertThat(store.rows).containsOnlyKeys(1L, 2L);

    worker.run();

    assertThat(store.rows).isEmpty();
    assertThat(delivered.stream().flatMap(List::stream)).containsExactly(1L, 2L);
  }

  @Test
  void aFailureOfTheLastAllowedAttemptIsReportedDead() {
    OutboxConfig oneAttempt =
        new OutboxConfig(
            "orders",
            Ordering.GROUP,
            1,
            1,
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            100,
            false,
            false,
            "scripted",
            Map.of());
    store.add(1, "g");
    store.add(2, "h");

    worker(
            oneAttempt,
            0,
            batch -> DeliveryReport.builder().failed(2, "refused").confirmed(1).build(),
            new NodeShare(1))
        .run();

    assertThat(events).containsExactly("lease TAKEN", "call 0ms", "completed 1/1/1");
  }

  @Test
  void aLostLeaseIsReported() {
    store.add(1, "g");
    Relay slow =
        batch -> {
          store.advanceDatabaseClock(TERMS.ttl());
          store.acquire(OUTBOX.name(), 0, "node-b", TERMS.ttl());
          return DeliveryReport.builder().confirmed(1).build();
        };

    worker(0, slow, new NodeShare(1)).run();

    assertThat(events).containsExactly("lease TAKEN", "call 0ms", "lease LOST");
  }

  /** A relay that confirms each batch once {@code release} opens, {@code inRelay} counted down. */
  private Relay heldInRelay(CountDownLatch inRelay, CountDownLatch release) {
    return batch -> {
      inRelay.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return confirmAll.deliver(batch);
    };
  }

  @Test
  void wakeUpsDuringARunMergeIntoOneMoreRoundOfThatRunAndAskForNoTask() throws Exception {
    store.add(1, "g");
    CountDownLatch inRelay = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    PartitionWorker worker = worker(0, heldInRelay(inRelay, release), new NodeShare(1));
    Thread run = new Thread(worker);
    run.start();
    assertThat(inRelay.await(10, TimeUnit.SECONDS)).isTrue();

    worker.run(); // a poll: returns at once, a run is under way
    worker.run();
    assertThat(worker.wake()).as("a run is under way: no task for a wake-up").isFalse();
    store.add(2, "g");
    assertThat(store.emptyReads).as("the first run is still in its batch").hasValue(0);
    release.countDown();
    run.join(10_000);

    assertThat(run.isAlive()).isFalse();
    assertThat(delivered)
        .as("the row committed during the batch went out in the run's one more round")
        .containsExactly(List.of(1L), List.of(2L));
    assertThat(store.emptyReads)
        .as("three requests, one more round: each batch found all that was ready")
        .hasValue(0);
    assertThat(worker.wake()).as("no run is under way").isTrue();
  }

  /**
   * The batch read is told of a wake-up that arrived during its run (so that a transaction holding
   * blocked rows can end early and let the rows just committed go first), and the flag is the
   * worker's: the read only looks at it, and the run serves it with one more round, whose read has
   * heard of none.
   */
  @Test
  void aReadHearsOfAWakeUpThatArrivedDuringItsRunWhichServesItWithOneMoreRound() {
    store.add(1, "g");
    PartitionWorker worker = worker(0, confirmAll, new NodeShare(1));
    store.onRead =
        () -> {
          if (store.wokenAtRead.isEmpty()) {
            worker.wake(); // a commit during the first read
          }
        };

    worker.run();

    assertThat(store.wokenAtRead).containsExactly(true, false);
    assertThat(delivered).containsExactly(List.of(1L));
    assertThat(store.emptyReads).as("the one more round read nothing").hasValue(1);
  }

  @Test
  void aRelayThatThrowsChargesNothingAndThePartitionBacksOffUntilItAnswers() {
    store.add(1, "g");
    store.add(2, "g");
    store.add(3, "h");
    List<Integer> calls = new ArrayList<>();
    boolean[] down = {true};
    Relay flaky =
        batch -> {
          calls.add(batch.size());
          if (down[0]) {
            throw new IllegalStateException("broker down");
          }
          return confirmAll.deliver(batch);
        };
    PartitionWorker worker = worker(0, flaky, new NodeShare(1));

    worker.run();
    assertThat(calls).hasSize(1);
    assertThat(store.rows.values()).allMatch(r -> r.attempts == 0 && r.state == RowState.READY);
    assertThat(outages)
        .containsExactly(
            "unavailable (failed calls in a row: 1): java.lang.IllegalStateException: broker down");

    // backoff.min is 1s: no call before it, one after it; the second failure waits 2s.
    advance(Duration.ofMillis(999));
    worker.run();
    assertThat(calls).hasSize(1);
    advance(Duration.ofMillis(1));
    worker.run();
    assertThat(calls).hasSize(2);
    advance(Duration.ofMillis(1999));
    worker.run();
    assertThat(calls).hasSize(2);

    down[0] = false;
    advance(Duration.ofMillis(1));
    worker.run();
    assertThat(calls).hasSize(3);
    assertThat(outages).hasSize(3).endsWith((String) null);
    assertThat(delivered).containsExactly(List.of(1L, 2L, 3L));
    assertThat(store.rows).isEmpty();
  }

  @Test
  void theRelayGetsWhatTheBatchReadLeftOfTheCallBudgetAndNoCallOnceItIsSpent() {
    store.add(1, "g");
    List<Duration> given = new ArrayList<>();
    Relay timed = confirmingAndKeepingTheTimeGiven(given);
    PartitionWorker worker = worker(0, timed, new NodeShare(1));
    nanos.addAndGet(1); // not at zero: the lease's first renewal is timed from here
    store.onRead = () -> nanos.addAndGet(Duration.ofSeconds(4).toNanos());

    worker.run();
    assertThat(given).as("10s budget, 4s of it read").containsExactly(Duration.ofSeconds(6));

    store.add(2, "g");
    store.onRead = () -> nanos.addAndGet(Duration.ofSeconds(10).toNanos());
    worker.run();
    assertThat(given).as("no call once the read used the budget up").hasSize(1);
    assertThat(store.rows).containsOnlyKeys(2L);
  }

  /**
   * A renewal that waited long for the lease row (behind an operator's repair) and passed left the
   * lease less time than a call budget, counted from before the renewal: the relay gets only that,
   * less a margin, so that no call runs past the lease while another server may take it.
   */
  @Test
  void aRenewalThatTookLongLeavesTheRelayOnlyWhatTheLeaseHasLeft() {
    List<Duration> given = new ArrayList<>();
    Relay timed = confirmingAndKeepingTheTimeGiven(given);
    PartitionWorker worker = worker(0, timed, new NodeShare(1));
    nanos.addAndGet(1);
    worker.run(); // takes the lease at 0s: 30s by the database's clock
    store.add(1, "g");
    advance(Duration.ofSeconds(11)); // past the renewal time, a third of the ttl
    store.onRenew = () -> advance(Duration.ofSeconds(18)); // waits until 29s, and passes

    worker.run();

    assertThat(store.owner(0)).isEqualTo("node-a");
    assertThat(given)
        .as("held until 11s + 27s (the ttl less a tenth), the call starting at 29s")
        .containsExactly(Duration.ofSeconds(9));
  }

  @Test
  void aRelayCallThatReturnsAfterItsDeadlineRecordsNothingIsLoggedAndThePartitionPauses() {
    store.add(1, "g");
    store.add(2, "h");
    List<Integer> calls = new ArrayList<>();
    Relay overrunning =
        batch -> {
          calls.add(batch.size());
          advance(TERMS.callBudget().plusMillis(1)); // 10s budget at a 30s ttl
          return DeliveryReport.builder().confirmed(1).failed(2, "refused").build();
        };
    PartitionWorker worker = worker(0, overrunning, new NodeShare(1));
    List<LogRecord> logged = logsOf(worker);

    assertThat(store.completions).as("nothing recorded").hasValue(0);
    assertThat(store.rows).containsOnlyKeys(1L, 2L);
    assertThat(store.rows.values()).allMatch(r -> r.attempts == 0 && r.state == RowState.READY);
    assertThat(events).containsExactly("lease TAKEN", "call 10001ms");
    assertThat(worker.lease()).as("an overrun is not a lost lease").isNotNull();
    assertThat(logged)
        .filteredOn(
            r -> r.getLevel() == Level.WARNING && r.getMessage().startsWith("OUTBOXER-3011"))
        .extracting(LogRecord::getMessage)
        .containsExactly(
            "OUTBOXER-3011 relay call of outbox orders partition 0 returned after its deadline: it"
                + " took 10001 ms of the 10000 ms it was given (the batch's budget is 10000 ms,"
                + " from before the read); its report is ignored, the batch stays pending and no"
                + " attempt is charged");
    assertThat(outages).hasSize(1).allMatch(o -> o.contains("returned after its deadline"));

    // The partition pauses as after a failed call (backoff.min 1s), then delivers.
    advance(Duration.ofMillis(999));
    worker.run();
    assertThat(calls).hasSize(1);
  }
}
