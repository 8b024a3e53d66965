package io.outboxer.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.outboxer.internal.config.OutboxerRuntime;
import io.outboxer.internal.rules.BatchOutcome;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.ReadStart;
import io.outboxer.internal.rules.RetryPolicy;
import io.outboxer.internal.store.AdminStore;
import io.outboxer.internal.store.Lease;
import io.outboxer.internal.store.LeaseStore;
import io.outboxer.internal.store.MessageStore;
import io.outboxer.internal.store.RowState;
import io.outboxer.internal.store.StoredMessage;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.LeasedOutbox;
import io.outboxer.it.support.MessageRows;
import io.outboxer.it.support.Sql;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every row write of a batch is fenced by the partition's lease and guarded by the row's state, and
 * no path leaves rows held without a failing head. The store is used as a worker uses it, on
 * outboxes no engine delivers: the test holds the leases.
 */
@ExtendWith(ArquillianExtension.class)
class FencingIT {

  /** No wake-up arrives during the reads of these tests. */
  private static final BooleanSupplier NOT_WOKEN = () -> false;

  private static final Duration TTL = Duration.ofMinutes(10);
  private static final RetryPolicy GROUPED = LeasedOutbox.HOURLY_RETRIES;

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(FencingIT.class);
  }

  @Inject MessageStore messages;

  @Inject LeaseStore leases;

  @Inject AdminStore admin;

  @Inject OutboxerRuntime runtime;

  @Inject UserTransaction tx;

  private static String newOutbox() {
    return "it-fence-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private Lease lease(String outbox, String owner) {
    leases.createLeases(outbox, 1);
    return leases.acquire(outbox, 0, owner, TTL).orElseThrow();
  }

  /** What a batch read from the partition's first row, with batches of 10, hands to the relay. */
  private List<Envelope> batch(Lease lease) {
    return messages
        .nextBatch(lease, Ordering.GROUP, 10, true, ReadStart.FIRST_ROW, NOT_WOKEN)
        .orElseThrow()
        .envelopes();
  }

  private static List<Object[]> rows(String outbox) {
    return Sql.query(
        "select id, state, attempts from outboxer_message where outbox = ? order by id", outbox);
  }

  @Test
  void aWorkerWhoseLeaseLapsedReadsNothingAndChangesNothing() {
    String outbox = newOutbox();
    Lease stale = lease(outbox, "first");
    long head = MessageRows.insert(outbox, "g", RowState.READY, 0);
    MessageRows.insert(outbox, "g", RowState.READY, 0);
    List<Envelope> batch = batch(stale);
    // The lease lapses and another worker takes the partition.
    Sql.update("update outboxer_lease set expires_at = 0 where outbox = ?", outbox);
    Lease current = leases.acquire(outbox, 0, "second", TTL).orElseThrow();
    List<Object[]> before = rows(outbox);

    DeliveryReport report = DeliveryReport.builder().failed(head, "refused").build();
    assertThat(messages.complete(stale, GROUPED.complete(BatchOutcome.decide(batch, report))))
        .isFalse();
    assertThat(messages.nextBatch(stale, Ordering.GROUP, 10, true, ReadStart.FIRST_ROW, NOT_WOKEN))
        .isEmpty();

    assertThat(rows(outbox)).usingRecursiveComparison().isEqualTo(before);
    assertThat(current.epoch()).isEqualTo(stale.epoch() + 1);
    assertThat(batch(current)).extracting(Envelope::id).containsExactly(head, head + 1);
  }

  @Test
  void heldRowsWithoutAFailingHeadAreReleasedWhenTheWorkerMeetsThem() {
    String outbox = newOutbox();
    Lease lease = lease(outbox, "worker");
    long orphan1 = MessageRows.insert(outbox, "orphaned", RowState.HELD, 0);
    long orphan2 = MessageRows.insert(outbox, "orphaned", RowState.HELD, 0);
    long dueAgain = MessageRows.insert(outbox, "retried", RowState.READY, 2);
    long heldBehind = MessageRows.insert(outbox, "retried", RowState.HELD, 0);
    long next = MessageRows.insert(outbox, "orphaned", RowState.READY, 0);
    long behindDue = MessageRows.insert(outbox, "retried", RowState.READY, 0);

    List<Envelope> batch = batch(lease);

    // "orphaned" has held rows but no failing head: they are released and go first, in order;
    // "retried" has a head due again, which goes, while its held row and what comes behind it wait.
    assertThat(batch).extracting(Envelope::id).containsExactly(orphan1, orphan2, dueAgain, next);
    assertThat(Sql.number("select state from outboxer_message where id = ?", heldBehind))
        .isEqualTo(1);
    assertThat(Sql.number("select state from outboxer_message where id = ?", behindDue))
        .as("held as it was met")
        .isEqualTo(1);
  }

  @Test
  void anOutboxStartedWithoutGroupOrderingReleasesItsHeldRows() {
    String outbox = newOutbox();
    MessageRows.insert(outbox, "g", RowState.RETRYING, 1);
    MessageRows.insert(outbox, "g", RowState.HELD, 0);
    MessageRows.insert(outbox, "g", RowState.HELD, 0);

    assertThat(messages.releaseHeld(outbox)).isEqualTo(2);
    assertThat(
            Sql.number(
                "select count(*) from outboxer_message where outbox = ? and state = "
                    + RowState.HELD.code(),
                outbox))
        .isZero();
  }

  /**
   * An operator discards a group's retrying head while a batch read is holding rows of that group.
   * On PostgreSQL the discard waits for the read, so its release sees the rows the read held;
   * SQLite has one connection, so the two never overlap and the discard comes after the read.
   */
  @Test
  void aDiscardedHeadReleasesEvenTheRowsABatchReadIsHoldingAtThatMoment() throws Exception {
    String outbox = newOutbox();
    Lease lease = lease(outbox, "worker");
    long head = MessageRows.insert(outbox, "g", RowState.RETRYING, 1);
    Sql.update(
        "update outboxer_message set next_attempt_at = next_attempt_at + 3600000 where id = ?",
        head);
    MessageRows.insert(outbox, "g", RowState.READY, 0);
    MessageRows.insert(outbox, "g", RowState.READY, 0);
    Callable<Void> discardHead =
        () ->
            inTransaction(
                () -> {
                  admin.discard(admin.findForRepair(outbox, head).orElseThrow(), true);
                  return null;
                });

    if (!Sql.database().equals("postgresql")) {
      assertThat(batch(lease)).isEmpty();
      assertThat(rows(outbox)).extracting(r -> ((Number) r[1]).intValue()).containsExactly(3, 1, 1);
      discardHead.call();
      assertThat(rows(outbox)).extracting(r -> ((Number) r[1]).intValue()).containsExactly(0, 0);
      return;
    }
    tx.begin();
    assertThat(batch(lease)).isEmpty();
    Future<?> discard = startWaitingForALock(discardHead);
    assertThat(discard).as("the discard waits for the batch read").isNotDone();
    tx.commit();
    discard.get(30, TimeUnit.SECONDS);

    assertThat(rows(outbox)).extracting(r -> ((Number) r[1]).intValue()).containsExactly(0, 0);
  }

  /**
   * An operator revives a message while the partition's batch in progress is making it dead. On
   * PostgreSQL the repair waits for that batch before it reads the message, so it finds it dead and
   * revives it; a repair that read first would have found it waiting and refused. SQLite has one
   * connection, so the repair comes after the batch.
   */
  @Test
  void aRepairReadsTheMessageAsTheBatchInProgressLeavesIt() throws Exception {
    String outbox = newOutbox();
    Lease lease = lease(outbox, "worker");
    long message = MessageRows.insert(outbox, "g", RowState.READY, 2);
    Callable<StoredMessage> revive =
        () ->
            inTransaction(
                () -> {
                  StoredMessage found = admin.findForRepair(outbox, message).orElseThrow();
                  if (found.state() == RowState.DEAD) {
                    admin.reviveDead(found);
                  }
                  return found;
                });

    tx.begin();
    assertThat(batch(lease)).extracting(Envelope::id).containsExactly(message);
    Sql.update(
        "update outboxer_message set state = "
            + RowState.DEAD.code()
            + ", attempts = 3 where id = ?",
        message);
    if (!Sql.database().equals("postgresql")) {
      tx.commit();
      assertThat(revive.call().state()).isEqualTo(RowState.DEAD);
    } else {
      Future<StoredMessage> repair = startWaitingForALock(revive);
      assertThat(repair).as("the repair waits for the batch").isNotDone();
      tx.commit();
      assertThat(repair.get(30, TimeUnit.SECONDS).state()).isEqualTo(RowState.DEAD);
    }

    assertThat(rows(outbox))
        .as("revived: ready, attempts reset")
        .extracting(r -> ((Number) r[1]).intValue(), r -> ((Number) r[2]).intValue())
        .containsExactly(tuple(0, 0));
  }

  /**
   * A renewal that waited for the lease row behind another transaction (an operator's repair) until
   * the lease expired fails: the database judges it when the statement runs, not when its
   * transaction began, so the worker stops before another server may take the partition. SQLite has
   * one connection, so there a renewal never waits behind a repair; it fails once the lease expired
   * all the same.
   */
  @Test
  void aRenewalThatWaitedPastTheLeasesExpiryFails() throws Exception {
    String outbox = newOutbox();
    leases.createLeases(outbox, 1);
    Lease lease = leases.acquire(outbox, 0, "worker", Duration.ofSeconds(2)).orElseThrow();
    long message = MessageRows.insert(outbox, "g", RowState.READY, 0);
    if (!Sql.database().equals("postgresql")) {
      Sql.update("update outboxer_lease set expires_at = 0 where outbox = ?", outbox);
      assertThat(leases.renew(lease, Duration.ofSeconds(2))).isFalse();
      return;
    }

    tx.begin();
    admin.findForRepair(outbox, message).orElseThrow(); // holds the lease row
    Future<Boolean> renewal =
        startWaitingForALock(() -> inTransaction(() -> leases.renew(lease, Duration.ofSeconds(2))));
    await("the lease's expiry, by the database's clock")
        .atMost(Duration.ofSeconds(30))
        .pollInSameThread()
        .until(
            () ->
                Sql.number(
                    "select count(*) from outboxer_lease where outbox = ? and expires_at"
                        + " < extract(epoch from clock_timestamp()) * 1000",
                    outbox),
            expired -> expired == 1);
    tx.commit();

    assertThat(renewal.get(30, TimeUnit.SECONDS)).as("the renewal that waited").isFalse();
    assertThat(leases.acquire(outbox, 0, "another", TTL)).isPresent();
  }

  /**
   * An engine transaction (here a renewal in a transaction of its own, as the worker's) waits for a
   * lock at most one lease ttl ({@code outboxer.lease.ttl}, 30 s in the test server), then fails
   * with PostgreSQL's lock timeout while the other transaction still holds the lease row: a worker
   * never waits for good behind an operator's repair or an application's transaction. SQLite has
   * one connection, and its engine transactions take turns instead (ADR 0018).
   */
  @Test
  void anEngineTransactionWaitsForALockAtMostOneLeaseTtl() throws Exception {
    if (!Sql.database().equals("postgresql")) {
      return;
    }
    String outbox = newOutbox();
    Lease lease = lease(outbox, "worker");
    long message = MessageRows.insert(outbox, "g", RowState.READY, 0);
    Duration ttl = runtime.settings().leaseTtl();
    tx.begin();
    try {
      admin.findForRepair(outbox, message).orElseThrow(); // holds the lease row
      long started = System.nanoTime();
      Future<Boolean> renewal = startWaitingForALock(() -> leases.renew(lease, TTL));
      ExecutionException failed =
          catchThrowableOfType(
              ExecutionException.class,
              () -> renewal.get(ttl.plusSeconds(15).toSeconds(), TimeUnit.SECONDS));
      Duration waited = Duration.ofNanos(System.nanoTime() - started);
      assertThat(failed).as("the renewal, while the lease row was still held").isNotNull();
      assertThat(Stream.iterate((Throwable) failed, Objects::nonNull, Throwable::getCause))
          .extracting(Throwable::getMessage)
          .anySatisfy(m -> assertThat(m).contains("lock timeout"));
      assertThat(waited).isBetween(ttl.minusSeconds(1), ttl.plusSeconds(10));
    } finally {
      tx.rollback();
    }
  }

  /**
   * Starts {@code work} on another thread, returning once a session of the database waits for a
   * lock.
   */
  private static <T> Future<T> startWaitingForALock(Callable<T> work) throws Exception {
    ManagedExecutorService executor =
        InitialContext.doLookup("java:comp/DefaultManagedExecutorService");
    Future<T> started = executor.submit(work);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInSameThread()
        .until(
            () ->
                Sql.number(
                        "select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                            + " and datname = current_database()")
                    >= 1);
    return started;
  }

  /** Runs {@code work} in a transaction of its own, rolled back when it fails. */
  private <T> T inTransaction(Callable<T> work) throws Exception {
    tx.begin();
    try {
      T result = work.call();
      tx.commit();
      return result;
    } catch (Exception | AssertionError e) {
      tx.rollback();
      throw e;
    }
  }
}
