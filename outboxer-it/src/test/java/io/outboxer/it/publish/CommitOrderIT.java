package io.outboxer.it.publish;

import static io.outboxer.it.support.LeasedOutbox.HOURLY_RETRIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.internal.health.OutboxerReadiness;
import io.outboxer.internal.rules.BatchOutcome;
import io.outboxer.internal.rules.Completion;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.Partitioner;
import io.outboxer.internal.rules.ReadBatch;
import io.outboxer.internal.rules.ReadStart;
import io.outboxer.internal.store.Dialect;
import io.outboxer.internal.store.Lease;
import io.outboxer.internal.store.LeaseStore;
import io.outboxer.internal.store.MessageStore;
import io.outboxer.it.jms.OrderedListener;
import io.outboxer.it.jms.OrderedListener.Consumed;
import io.outboxer.it.relay.Journal;
import io.outboxer.it.relay.Journal.Attempt;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.KafkaRecords;
import io.outboxer.it.support.LeasedOutbox;
import io.outboxer.it.support.MessageRows;
import io.outboxer.it.support.OnDatabase;
import io.outboxer.it.support.OpenTransaction;
import io.outboxer.it.support.Sql;
import io.outboxer.it.support.TransactionSetting;
import io.outboxer.it.support.Writers;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.awaitility.core.ConditionTimeoutException;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Commit-safe order without serialized writers (ADR 0010), on PostgreSQL: 16 publishers over 4
 * groups whose transactions pause before they end and roll back one time in ten. Workers that wait
 * for writers deliver each group in id order; workers that do not (wait-for-writers=false) deliver
 * a later id first when the transaction of an earlier one commits after it. A transaction left open
 * holds back its own partition only, and the rows deleted meanwhile cost the other partitions'
 * reads nothing; a rollback or a terminated session releases it at once. The other partitions'
 * throughput beside an open transaction is measured by the benchmark (W3).
 */
@OnDatabase(
    value = "postgresql",
    because = "writers in flight at once (SQLite has one writer at a time)")
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CommitOrderIT {

  /** No wake-up arrives during the reads of these tests. */
  private static final BooleanSupplier NOT_WOKEN = () -> false;

  private static final Logger LOG = Logger.getLogger(CommitOrderIT.class.getName());
  private static final Duration PAUSE = Duration.ofMillis(10);
  private static final Pattern BACKEND = Pattern.compile("backend (\\d+)");
  private static final Pattern BUFFERS =
      Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?");

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(CommitOrderIT.class, OrderedListener.class);
  }

  @Inject Outbox outbox;
  @Inject UserTransaction tx;
  @Inject MessageStore store;
  @Inject LeaseStore leases;
  @Inject TransactionSetting setting;
  @Inject OutboxerReadiness readiness;

  private final String run = "commit-" + UUID.randomUUID() + "-";

  /** Four groups of {@code run}, the {@code i}th in partition {@code i} of four. */
  private List<String> groupPerPartition() {
    List<String> groups = new ArrayList<>();
    for (int partition = 0; partition < 4; partition++) {
      int k = 0;
      while (Partitioner.partitionOf(run + partition + "-" + k, 4) != partition) {
        k++;
      }
      groups.add(run + partition + "-" + k);
    }
    return groups;
  }

  /**
   * Commit-safe order needs an identity that hands out ids one at a time and transactions at read
   * committed: the store names what the database lacks, and the engine refuses every outbox that
   * waits for writers at start for it (OUTBOXER-1103, OutboxConfigTest).
   */
  @Test
  void whatCommitSafeOrderNeedsOfTheDatabaseIsChecked() throws Exception {
    assertThat(store.commitOrderProblems()).isEmpty();
    // The identity's sequence itself: an alter of the table would lock it against the workers,
    // which lock the sequence first (LAST_ID), and deadlock with them.
    String sequence =
        (String) Sql.query("select pg_get_serial_sequence('outboxer_message', 'id')").get(0)[0];
    Sql.update("alter sequence " + sequence + " cache 50");
    try {
      assertThat(store.commitOrderProblems())
          .singleElement()
          .asString()
          .startsWith("the identity of outboxer_message.id caches 50 ids per session");
    } finally {
      Sql.update("alter sequence " + sequence + " cache 1");
    }
    tx.begin();
    try {
      setting.isolation("repeatable read");
      assertThat(store.commitOrderProblems())
          .containsExactly(
              "the data source's transactions run at repeatable read, not read committed (set"
                  + " isolationLevel=\"TRANSACTION_READ_COMMITTED\" on its dataSource in"
                  + " server.xml)");
    } finally {
      tx.rollback();
    }
    assertThat(store.commitOrderProblems()).isEmpty();
  }

  @Test
  @Order(1)
  void sixteenWritersOverFourGroupsArriveInIdOrderThroughKafka() throws Exception {
    try (KafkaConsumer<String, String> consumer = consumer("outboxer-it-commit")) {
      Writers.Run published =
          Writers.run(16, groupPerPartition(), 20_000, PAUSE, this::publishCommit);
      Map<String, List<Long>> arrived = readKafka(consumer, published, Duration.ofSeconds(120));

      report("it-commit", published, arrived);
      assertThat(published.count()).isGreaterThanOrEqualTo(20_000);
      assertThat(published.rolledBack()).isPositive();
      assertThat(Writers.inversions(arrived))
          .as("messages after a higher id")
          .containsOnlyKeys(published.committed().keySet())
          .allSatisfy((g, n) -> assertThat(n).isZero());
      assertThat(ids(arrived)).as("what committed, nothing else").isEqualTo(ids(published));
    }
  }

  /**
   * The order that waiting for writers keeps (order 1) is not kept without it: a transaction that
   * published first and commits last has its message delivered after a later id of its group, which
   * went out while it was open.
   */
  @Test
  @Order(2)
  void workersThatDoNotWaitForWritersDeliverLaterIdsFirst() throws Exception {
    String group = run + "inversion";
    try (KafkaConsumer<String, String> consumer = consumer("outboxer-it-commit-off")) {
      OpenTransaction open =
          OpenTransaction.publishing(() -> outbox.publish(new ItEvents.CommitOff(group, 0)));
      tx.begin();
      long later = outbox.publish(new ItEvents.CommitOff(group, 1));
      tx.commit();
      List<Long> arrived = new ArrayList<>();
      awaitArrivals(consumer, group, arrived, 1, Duration.ofSeconds(30));
      assertThat(arrived).as("while the earlier id's transaction is open").containsExactly(later);

      open.commit();
      awaitArrivals(consumer, group, arrived, 2, Duration.ofSeconds(30));
      assertThat(open.id()).isLessThan(later);
      assertThat(arrived).as("the later id first").containsExactly(later, open.id());
    }
  }

  @Test
  @Order(4)
  void sixteenWritersOverFourGroupsArriveInIdOrderThroughJms() throws Exception {
    int before = OrderedListener.consumed().size();
    Writers.Run published =
        Writers.run(
            16,
            groupPerPartition(),
            2_000,
            PAUSE,
            (group, seq) -> outbox.publish(new ItEvents.CommitJms(group, seq)));
    Set<Long> expected = ids(published);
    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              arrived.clear();
              Set<Long> seen = new HashSet<>();
              List<Consumed> consumed = OrderedListener.consumed();
              for (Consumed c : consumed.subList(before, consumed.size())) {
                if (c.group() != null && c.group().startsWith(run) && seen.add(c.id())) {
                  arrived.computeIfAbsent(c.group(), g -> new ArrayList<>()).add(c.id());
                }
              }
              return seen.containsAll(expected);
            });

    report("it-commit-jms", published, arrived);
    assertThat(Writers.inversions(arrived).values())
        .as("messages after a higher id")
        .containsOnly(0);
    assertThat(ids(arrived)).isEqualTo(expected);
  }

  /**
   * A transaction that published to partition 0 stays open for 30 s: the rows of partition 0 behind
   * its id wait, readiness names it, and the other partitions deliver all that is published beside
   * it, in order, while it is open.
   */
  @Test
  @Order(3)
  void aTransactionLeftOpenHoldsBackOnlyItsPartition() throws Exception {
    List<String> groups = groupPerPartition();
    List<String> others = groups.subList(1, 4);
    try (KafkaConsumer<String, String> consumer = consumer("outboxer-it-commit")) {
      long opened = System.nanoTime();
      OpenTransaction open = OpenTransaction.publishing(() -> publishCommit(groups.get(0), -1));
      tx.begin();
      long behind = publishCommit(groups.get(0), -2);
      tx.commit();
      // The other partitions deliver everything published beside it while it stays open.
      Writers.Run beside = Writers.run(12, others, 1_500, PAUSE, this::publishCommit);
      Map<String, List<Long>> besideArrived = readKafka(consumer, beside, Duration.ofSeconds(60));
      assertThat(ids(besideArrived)).isEqualTo(ids(beside));
      assertThat(
              Writers.inversions(besideArrived).values().stream().mapToInt(Integer::intValue).sum())
          .isZero();
      assertThat(readiness())
          .as("readiness names the open transaction")
          .hasEntrySatisfying(
              "inflight.it-commit.partition.0",
              v ->
                  assertThat(String.valueOf(v))
                      .startsWith("from id " + open.id() + ", transaction open "));

      // Held for 30 s in all; until then its partition shows nothing of what came behind it.
      await()
          .pollInSameThread()
          .atMost(Duration.ofSeconds(40))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                assertThat(arrivals(consumer)).doesNotContainKey(groups.get(0));
                return System.nanoTime() - opened >= TimeUnit.SECONDS.toNanos(30);
              });
      open.commit();
      List<Long> partition0 = new ArrayList<>();
      awaitArrivals(consumer, groups.get(0), partition0, 2, Duration.ofSeconds(10));
      assertThat(partition0)
          .as("partition 0, once it committed")
          .containsExactly(open.id(), behind);
    }
  }

  @Test
  @Order(5)
  void aRollbackReleasesThePartitionAtOnce() throws Exception {
    String group = run + "rollback";
    OpenTransaction open =
        OpenTransaction.publishing(() -> outbox.publish(new ItEvents.Group(group, 0)));
    long behind = publishGroup(group, 1);
    String where = "inflight.it-group.partition." + Partitioner.partitionOf(group, 2);
    assertThat(readiness())
        .hasEntrySatisfying(
            where, v -> assertThat(String.valueOf(v)).startsWith("from id " + open.id() + ","));
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> delivered(group).isEmpty());

    long start = System.nanoTime();
    open.rollback();
    await().atMost(Duration.ofSeconds(2)).until(() -> delivered(group).equals(List.of(behind)));
    LOG.info(
        "delivered "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
            + "ms after the rollback of the transaction ahead of it");
    assertThat(readiness()).doesNotContainKey(where);
  }

  /**
   * The session of an open publishing transaction is terminated: its advisory locks vanish with it,
   * and what waited behind it goes at once.
   */
  @Test
  @Order(6)
  void aTerminatedSessionReleasesThePartitionAtOnce() throws Exception {
    String group = run + "killed";
    OpenTransaction open =
        OpenTransaction.publishing(() -> outbox.publish(new ItEvents.Group(group, 0)));
    long behind = publishGroup(group, 1);
    String where = "inflight.it-group.partition." + Partitioner.partitionOf(group, 2);
    Map<String, Object> data = readiness();
    assertThat(data)
        .hasEntrySatisfying(
            where, v -> assertThat(String.valueOf(v)).startsWith("from id " + open.id() + ","));
    Matcher backend = BACKEND.matcher((String) data.get(where));
    assertThat(backend.find()).isTrue();
    int pid = Integer.parseInt(backend.group(1));
    assertThat(advisoryLocksOf(pid)).as("the partition's lock and the ids' bound").isEqualTo(2);
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> delivered(group).isEmpty());

    assertThat(Sql.query("select pg_terminate_backend(?)", pid).get(0)[0]).isEqualTo(true);
    await().atMost(Duration.ofSeconds(2)).until(() -> delivered(group).equals(List.of(behind)));

    assertThat(advisoryLocksOf(pid)).as("locks left by the terminated session").isZero();
    assertThat(readiness()).doesNotContainKey(where);
    assertThatThrownBy(() -> open.tryCommit().get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
    assertThat(Sql.number("select count(*) from outboxer_message where id = ?", open.id()))
        .isZero();
  }

  /**
   * A message without a group has no order to keep, but its transaction is announced all the same:
   * workers read past the ids they delivered (ADR 0014), so a row committed below them would wait
   * until a read from the first row. Left open, it holds back its partition; committed, it goes.
   */
  @Test
  @Order(7)
  void aMessageWithoutAGroupLeftOpenIsDeliveredOnceItCommits() throws Exception {
    OpenTransaction open =
        OpenTransaction.publishing(() -> outbox.publish(new ItEvents.Group(null, 0)));
    // Its partition is drawn at random; readiness names it.
    String where =
        readiness().entrySet().stream()
            .filter(e -> e.getKey().startsWith("inflight.it-group.partition."))
            .filter(e -> String.valueOf(e.getValue()).startsWith("from id " + open.id() + ","))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElseThrow();
    int partition = Integer.parseInt(where.substring(where.lastIndexOf('.') + 1));
    int k = 0;
    while (Partitioner.partitionOf(run + "beside-" + k, 2) != partition) {
      k++;
    }
    String group = run + "beside-" + k;
    long behind = publishGroup(group, 1);
    assertThat(behind).isGreaterThan(open.id());
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> delivered(group).isEmpty());

    open.commit();

    await().atMost(Duration.ofSeconds(5)).until(() -> delivered(group).equals(List.of(behind)));
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInSameThread()
        .until(
            () -> Sql.number("select count(*) from outboxer_message where id = ?", open.id()) == 0);
  }

  /**
   * While a transaction with an id stays open, PostgreSQL keeps the index entries of every row
   * deleted meanwhile: a read from the partition's first row walks them all, a read from past the
   * last delivered batch (READ_READY_FROM) starts after them.
   */
  @Test
  @Order(8)
  void aReadFromPastTheLastBatchSkipsTheRowsDeletedWhileATransactionStaysOpen() throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-dead-", "commit-order-test");
    String outbox = leased.name();
    Lease lease = leased.lease();
    MessageRows.insertGroupedBy(outbox, "'g' || (g % 100)", 20100);
    OpenTransaction open = OpenTransaction.publishing(() -> Sql.number("select txid_current()"));
    ReadStart start = ReadStart.FIRST_ROW;
    try {
      for (int b = 0; b < 40; b++) {
        ReadBatch batch =
            store.nextBatch(lease, Ordering.GROUP, 500, true, start, NOT_WOKEN).orElseThrow();
        List<Envelope> read = batch.envelopes();
        assertThat(read).hasSize(500);
        DeliveryReport.Builder report = DeliveryReport.builder();
        read.forEach(e -> report.confirmed(e.id()));
        assertThat(
                store.complete(
                    lease, HOURLY_RETRIES.complete(BatchOutcome.decide(read, report.build()))))
            .isTrue();
        start = batch.start().past(read.get(read.size() - 1).id());
      }

      long fromFirst = buffers(readReady(outbox, 0));
      long fromPast = buffers(readReady(outbox, start.id()));

      assertThat(fromPast).as("buffers read from past the last batch").isLessThanOrEqualTo(50);
      assertThat(fromFirst)
          .as("buffers read from the first row, past 20,000 dead entries")
          .isGreaterThan(10 * fromPast);
    } finally {
      open.rollback();
    }
    assertThat(
            store
                .nextBatch(lease, Ordering.GROUP, 500, true, start, NOT_WOKEN)
                .orElseThrow()
                .envelopes())
        .hasSize(100);
    Sql.update("delete from outboxer_message where outbox = ?", outbox);
  }

  /**
   * Statistics taken while the outbox table was nearly empty count a later burst as no row, and
   * every plan then prices a walk of the backlog as nothing (ADR 0017): the engine's heartbeat sees
   * the table changed by far more rows than they count and takes them again (OUTBOXER-0006),
   * without waiting for autovacuum (off on this machine).
   */
  @Test
  void statisticsFarBehindTheOutboxTableAreTakenAgainByTheEngine() throws Exception {
    String burst = run + "statistics";
    Sql.update("analyze outboxer_message");
    Sql.update(
        "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload,"
            + " state) select ?, 0, 'g', 'T', '{}', 2 from generate_series(1, 30000)",
        burst);
    try {
      await("the statistics taken again")
          .atMost(Duration.ofSeconds(90))
          .pollInSameThread()
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  Sql.number(
                      "select cast(reltuples as bigint) from pg_class"
                          + " where oid = cast('outboxer_message' as regclass)"),
              rows -> rows >= 27_000); // an estimate from the analyze's sample of 3,000 rows
    } finally {
      Sql.update("delete from outboxer_message where outbox = ?", burst);
    }
  }

  /**
   * A rollback to a savepoint releases the locks taken after it, and the row inserted with them: a
   * publish after it announces the transaction again, its ids' lower bound and its partition, so
   * that workers do not read past its rows while it stays open (they would come later, below the
   * workers' read start). The savepoint is set and rolled back by SQL, as an application's JDBC
   * code or a framework's nested transaction does, on the connection the publishes use.
   */
  @Test
  void aPublishAfterARollbackToASavepointIsAnnouncedAgain() throws Exception {
    String group = run + "savepoint";
    int partition = Partitioner.partitionOf(group, 2); // it-group's partitions
    tx.begin();
    try {
      setting.execute("savepoint before_publish");
      long rolledBack = outbox.publish(new ItEvents.Group(group, 0));
      assertThat(setting.announcedLocks()).as("after the first publish").isEqualTo(2);
      assertThat(setting.inFlightBound("it-group", partition)).isLessThanOrEqualTo(rolledBack);
      setting.execute("rollback to savepoint before_publish");
      assertThat(setting.announcedLocks()).as("after the rollback to the savepoint").isZero();
      long kept = outbox.publish(new ItEvents.Group(group, 1));
      assertThat(setting.announcedLocks()).as("after the next publish").isEqualTo(2);
      assertThat(setting.inFlightBound("it-group", partition))
          .as("the bound a worker of the partition reads")
          .isNotNull()
          .isLessThanOrEqualTo(kept);
      long further = outbox.publish(new ItEvents.Group(group, 2));
      assertThat(further).isGreaterThan(kept);
      assertThat(setting.announcedLocks()).as("after a further publish").isEqualTo(2);
    } finally {
      tx.rollback();
    }
  }

  /**
   * The batch read's transaction commits without waiting for the WAL flush (ADR 0015). The setting
   * is the transaction's own: the completion, which records the deliveries, flushes as every
   * transaction does. Both plan each statement at its execution (ADR 0017), each by a setting of
   * its own, which the transactions before them do not have, and by index whatever the statistics
   * say (StatementPlansIT shows the plans).
   */
  @Test
  @Order(9)
  void onlyTheBatchReadCommitsWithoutWaitingForTheWalFlush() throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-flush-", "flush-test");
    String outbox = leased.name();
    Lease lease = leased.lease();
    leased.insert("g");
    List<Envelope> read;
    tx.begin();
    try {
      assertThat(setting.of("synchronous_commit")).as("before the read").isEqualTo("on");
      assertThat(setting.of("plan_cache_mode")).as("before the read").isEqualTo("auto");
      read =
          store
              .nextBatch(lease, Ordering.GROUP, 10, true, ReadStart.FIRST_ROW, NOT_WOKEN)
              .orElseThrow()
              .envelopes();
      assertThat(setting.of("synchronous_commit")).as("after the read").isEqualTo("off");
      assertThat(setting.of("plan_cache_mode")).as("after the read").isEqualTo("force_custom_plan");
      assertThat(setting.of("enable_seqscan")).as("after the read").isEqualTo("off");
      assertThat(setting.of("enable_sort")).as("after the read").isEqualTo("off");
    } finally {
      tx.commit();
    }
    assertThat(read).hasSize(1);
    tx.begin();
    try {
      assertThat(setting.of("plan_cache_mode")).as("before the completion").isEqualTo("auto");
      assertThat(setting.of("enable_seqscan")).as("before the completion").isEqualTo("on");
      Completion delivered = new Completion(List.of(read.get(0).id()), List.of(), List.of());
      assertThat(store.complete(lease, delivered)).isTrue();
      assertThat(setting.of("synchronous_commit")).as("in the completion").isEqualTo("on");
      assertThat(setting.of("plan_cache_mode"))
          .as("in the completion")
          .isEqualTo("force_custom_plan");
      assertThat(setting.of("enable_seqscan")).as("in the completion").isEqualTo("off");
    } finally {
      tx.commit();
    }
    assertThat(Sql.number("select count(*) from outboxer_message where outbox = ?", outbox))
        .isZero();
  }

  /**
   * No statement of the worker's transactions on the outbox's table runs on the generic plan
   * PostgreSQL may keep for a prepared statement after its fifth run (ADR 0017; the setting that
   * prevents it, order 9): planned while the table was empty, that plan scans the whole table,
   * however large it grew since. The fences, on the lease table, run before the setting and keep
   * their generic plan, which no table size changes, instead of being planned again at every batch.
   */
  @Test
  @Order(10)
  void theWorkersStatementsOnTheOutboxArePlannedAtEachExecution() throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-plan-", "plan-test");
    Lease lease = leased.lease();
    // On one connection, enough runs for the driver to prepare the statements on the server (at
    // the fifth) and for PostgreSQL to turn to a generic plan (after five more): none on the outbox
    // does. One transaction keeps the connection, and runs nothing but the store's reads and
    // completions (the rows are written before it); each starts with the setting a transaction of
    // its own starts with.
    for (int i = 0; i < 20; i++) {
      leased.insert("g" + i);
    }
    tx.begin();
    try {
      TransactionSetting.Plans before = setting.plans("outboxer_message");
      TransactionSetting.Plans fencesBefore = setting.plans("outboxer_lease");
      for (int i = 0; i < 20; i++) {
        setting.reset("plan_cache_mode");
        List<Envelope> read =
            store
                .nextBatch(lease, Ordering.GROUP, 1, true, ReadStart.FIRST_ROW, NOT_WOKEN)
                .orElseThrow()
                .envelopes();
        assertThat(read).extracting(Envelope::groupKey).containsExactly("g" + i);
        setting.reset("plan_cache_mode");
        Completion delivered = new Completion(List.of(read.get(0).id()), List.of(), List.of());
        assertThat(store.complete(lease, delivered)).isTrue();
      }
      TransactionSetting.Plans after = setting.plans("outboxer_message");
      assertThat(after.generic() - before.generic())
          .as("runs on a generic plan")
          .isLessThanOrEqualTo(0);
      assertThat(after.custom() - before.custom()).as("runs on a plan of their own").isPositive();
      TransactionSetting.Plans fencesAfter = setting.plans("outboxer_lease");
      assertThat(fencesAfter.generic() - fencesBefore.generic())
          .as("the fences' runs on their generic plan")
          .isPositive();
    } finally {
      tx.rollback();
      Sql.update("delete from outboxer_message where outbox = ?", leased.name());
    }
  }

  /** The store's read of partition 0 from {@code from} on (the first row when 0), as SQL. */
  private static String readReady(String outbox, long from) {
    io.outboxer.internal.store.Sql statement =
        from == 0
            ? io.outboxer.internal.store.Sql.READ_READY
            : io.outboxer.internal.store.Sql.READ_READY_FROM;
    return Dialect.POSTGRESQL
        .sql(statement)
        .replace(":outbox", "'" + outbox + "'")
        .replace(":partition", "0")
        .replace(":from", Long.toString(from))
        .replace(":bound", Long.toString(Long.MAX_VALUE))
        .replace(":limit", "500");
  }

  /** The shared buffers (hit or read) that PostgreSQL's run of {@code query} touched. */
  private static long buffers(String query) {
    for (Object[] row : Sql.query("explain (analyze, buffers, costs off) " + query)) {
      Matcher m = BUFFERS.matcher(String.valueOf(row[0]));
      if (m.find()) {
        return count(m.group(1)) + count(m.group(2));
      }
    }
    throw new IllegalStateException("no buffer counts in the plan of " + query);
  }

  private static long count(String digits) {
    return digits == null ? 0 : Long.parseLong(digits);
  }

  private long publishCommit(String group, int seq) {
    return outbox.publish(new ItEvents.Commit(group, seq));
  }

  private long publishGroup(String group, int seq) throws Exception {
    tx.begin();
    long id = outbox.publish(new ItEvents.Group(group, seq));
    tx.commit();
    return id;
  }

  private static List<Long> delivered(String group) {
    return Journal.delivered(Journal.ofGroupsStartingWith(group)).stream()
        .map(Attempt::id)
        .toList();
  }

  private static long advisoryLocksOf(int pid) {
    return Sql.number("select count(*) from pg_locks where locktype = 'advisory' and pid = ?", pid);
  }

  private Map<String, Object> readiness() {
    return readiness.call().getData().orElse(Map.of());
  }

  private static KafkaConsumer<String, String> consumer(String topic) {
    KafkaConsumer<String, String> consumer =
        KafkaRecords.consumer("commit-order-it-" + UUID.randomUUID());
    consumer.subscribe(List.of(topic));
    return consumer;
  }

  /** This test's records that arrived since the last call, per group, in arrival order. */
  private Map<String, List<Long>> arrivals(KafkaConsumer<String, String> consumer) {
    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
      if (r.key() != null && r.key().startsWith(run)) {
        arrived.computeIfAbsent(r.key(), g -> new ArrayList<>()).add(KafkaRecords.id(r));
      }
    }
    return arrived;
  }

  /**
   * Adds the ids of {@code group} that arrive to {@code arrived}, in arrival order, until it holds
   * {@code count} of them.
   */
  private void awaitArrivals(
      KafkaConsumer<String, String> consumer,
      String group,
      List<Long> arrived,
      int count,
      Duration within) {
    await()
        .pollInSameThread()
        .atMost(within)
        .until(
            () -> {
              arrived.addAll(arrivals(consumer).getOrDefault(group, List.of()));
              return arrived.size() >= count;
            });
  }

  /** Reads until every id {@code published} committed arrived; each id at its first arrival. */
  private Map<String, List<Long>> readKafka(
      KafkaConsumer<String, String> consumer, Writers.Run published, Duration within) {
    Set<Long> expected = ids(published);
    Set<Long> seen = new HashSet<>();
    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    Consumer<Map<String, List<Long>>> take =
        batch ->
            batch.forEach(
                (g, ids) ->
                    ids.stream()
                        .filter(seen::add)
                        .forEach(id -> arrived.computeIfAbsent(g, k -> new ArrayList<>()).add(id)));
    try {
      await()
          .pollInSameThread()
          .pollInterval(Duration.ofMillis(10))
          .atMost(within)
          .until(
              () -> {
                take.accept(arrivals(consumer));
                return seen.containsAll(expected);
              });
    } catch (ConditionTimeoutException e) {
      Set<Long> missing = new TreeSet<>(expected);
      missing.removeAll(seen);
      throw new AssertionError(
          missing.size()
              + " of "
              + expected.size()
              + " messages did not arrive within "
              + within
              + " (the first: "
              + missing.stream().limit(5).toList()
              + "); rows of the outbox by partition and state: "
              + rowsByPartitionAndState()
              + "; the consumer: "
              + consumer.subscription().stream()
                  .map(topic -> KafkaRecords.standing(consumer, topic))
                  .toList(),
          e);
    }
    return arrived;
  }

  /** The rows of outbox it-commit by partition and state, for a failure's message. */
  private static String rowsByPartitionAndState() {
    try {
      return Sql.query(
              "select partition_no, state, count(*) from outboxer_message where outbox = ?"
                  + " group by partition_no, state order by partition_no, state",
              "it-commit")
          .stream()
          .map(Arrays::toString)
          .toList()
          .toString();
    } catch (RuntimeException e) {
      return "not read: " + e;
    }
  }

  private static Set<Long> ids(Writers.Run run) {
    return ids(run.committed());
  }

  private static Set<Long> ids(Map<String, List<Long>> byGroup) {
    Set<Long> ids = new HashSet<>();
    byGroup.values().forEach(ids::addAll);
    return ids;
  }

  private static void report(
      String outbox, Writers.Run published, Map<String, List<Long>> arrived) {
    LOG.info(
        outbox
            + ": "
            + published.count()
            + " messages committed, "
            + published.rolledBack()
            + " rolled back, in "
            + published.took().toMillis()
            + "ms; messages after a higher id of their group: "
            + Writers.inversions(arrived));
  }
}
