package io.outboxer.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The scenarios in order of importance, each measured beside its reference in this run, with a
 * warm-up and {@code bench.repetitions} repetitions; the product's and the reference's runs
 * alternate so that a change in the machine's load touches both.
 */
final class Scenarios {

  static final double NO_TARGET = Double.NaN;

  /** The server's outbox that relays to the embedded messaging engine (P1 into JMS). */
  static final String JMS_OUTBOX = "jms";

  private final Rig rig;
  private final Report report;
  private final Path out;
  private final long started;
  private final int budgetMinutes;
  private final int reps = Integer.getInteger("bench.repetitions", 3);
  private final int backlog = Integer.getInteger("bench.backlog", 50_000);
  private final int drainBacklog = Integer.getInteger("bench.p1.backlog", 1_000_000);
  private final int burst = Integer.getInteger("bench.p1c.backlog", 200_000);
  private final int othersBacklog = Integer.getInteger("bench.p4.backlog", 300_000);
  private final int sqliteBacklog = Integer.getInteger("bench.p1s.backlog", 100_000);
  private final int jmsBacklog = Integer.getInteger("bench.p1j.backlog", 50_000);
  private final int groups = Integer.getInteger("bench.groups", 10_000);
  private final int large = Integer.getInteger("bench.p5.large", 1_000_000);
  private final int heldBacklog = Integer.getInteger("bench.w3.backlog", 800_000);
  private final Drains drains;
  private final LoadScenarios load;
  private final WriterScenarios writers;

  /**
   * P2's publishing throughput with 8 clients (median), when measured: P3's rate stays under it.
   */
  private double publishCapacity = Double.NaN;

  Scenarios(Rig rig, Report report, Path out, long started, int budgetMinutes) {
    this.rig = rig;
    this.out = out;
    this.report = report;
    this.started = started;
    this.budgetMinutes = budgetMinutes;
    this.drains = new Drains(rig, groups);
    this.load = new LoadScenarios(rig, report, new Requests(rig, groups), reps);
    this.writers = new WriterScenarios(rig, report, drains, reps, backlog, heldBacklog);
  }

  interface Step {
    void run() throws Exception;
  }

  void run() throws Exception {
    Map<String, Step> steps = new LinkedHashMap<>();
    // First, as it restarts the server twice: P1's warm-up then serves every scenario after it.
    steps.put("P1s", this::p1OnSqlite);
    steps.put("P1", this::p1);
    steps.put("P1c", this::p1AnalyzedEmpty);
    steps.put("P1t", this::p1Transactions);
    steps.put("P1j", this::p1IntoJms);
    steps.put("profile", this::profile);
    steps.put("P5", this::p5);
    steps.put("P2", load::p2);
    steps.put("P3", load::p3);
    steps.put("P4", this::p4);
    // Issue 10's measurements, last: W3's bound has a command of its own (docs/performance.md).
    steps.put("W1", writers::drains);
    steps.put("W2", writers::publishing);
    steps.put("W3", writers::heldPartition);
    List<String> only = List.of(System.getProperty("bench.only", "").split(","));
    for (Map.Entry<String, Step> step : steps.entrySet()) {
      if (!only.get(0).isEmpty() && !only.contains(step.getKey())) {
        continue;
      }
      double minutes = minutesUsed();
      if (minutes > budgetMinutes) {
        report.note(
            step.getKey()
                + " left out: the run had used "
                + Math.round(minutes)
                + " of the "
                + budgetMinutes
                + " minutes within which a scenario may start");
        continue;
      }
      System.out.println("bench: " + step.getKey());
      try {
        step.getValue().run();
      } catch (Exception | AssertionError e) {
        // One scenario's failure leaves the others' figures standing; the report names it.
        e.printStackTrace();
        report.note(step.getKey() + " failed: " + e);
      }
    }
  }

  private double minutesUsed() {
    return (System.nanoTime() - started) / 60e9;
  }

  private void p1() throws Exception {
    // A warm-up of a whole backlog each: after a tenth of one, the server's first repetitions
    // still ran at a third of the speed of its drains later in the same run (JIT, thread pool).
    drainScenario(
        "P1",
        "drain " + drainBacklog + " msgs, " + groups + " groups -> Kafka",
        "limit pipeline",
        "backlog written by SQL in one transaction, then one publish per partition wakes the"
            + " workers; batch-size "
            + rig.batchSize()
            + ", "
            + rig.partitions()
            + " partitions",
        backlog,
        drainBacklog,
        n -> drains.product(rig.db(), n),
        n -> drains.limit(rig.db(), rig.limit(), n, LimitPipeline.Mode.PLAIN));
  }

  /**
   * P1 of a burst into an outbox whose statistics were taken while it was empty, as autovacuum
   * leaves an idle one: the product drains it with the planner counting an empty table, the limit
   * pipeline a table analyzed full (P1's reference).
   */
  private void p1AnalyzedEmpty() throws Exception {
    drainScenario(
        "P1c",
        "drain " + burst + " msgs, " + groups + " groups -> Kafka, the table analyzed empty",
        "limit pipeline, the table analyzed full",
        "P1 with no analyze after the insert into a table analyzed empty after a drain",
        backlog,
        burst,
        n -> drains.product(rig.db().analyzedEmpty(), n),
        n -> drains.limit(rig.db(), rig.limit(), n, LimitPipeline.Mode.PLAIN));
  }

  /** One drain of {@code count} messages, the product's or its reference's. */
  private interface Drain {
    Drains.Run of(int count) throws Exception;
  }

  /**
   * A drain scenario with P1's target: a warm-up of {@code warmUp} messages each, then the
   * repetitions of {@code count} messages, the product's and the reference's alternating.
   */
  private void drainScenario(
      String id,
      String title,
      String reference,
      String note,
      int warmUp,
      int count,
      Drain product,
      Drain limit)
      throws Exception {
    product.of(warmUp);
    limit.of(warmUp);
    List<Drains.Run> products = new ArrayList<>();
    List<Drains.Run> references = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      products.add(product.of(count));
      references.add(limit.of(count));
    }
    report.add(
        new Result(
            id,
            title,
            reference,
            true,
            figure("msg/s", products, Drains.Run::perSecond),
            figure("msg/s", references, Drains.Run::perSecond),
            0.6,
            note,
            cpu(products, references)));
  }

  /** The profile's step: the limit pipeline with one Kafka transaction per batch, as the relay. */
  private void p1Transactions() throws Exception {
    List<Drains.Run> transactional = new ArrayList<>();
    List<Drains.Run> onePartition = new ArrayList<>();
    List<Drains.Run> plain = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      transactional.add(
          drains.limit(rig.db(), rig.limit(), backlog, LimitPipeline.Mode.TRANSACTION_PER_BATCH));
      onePartition.add(
          drains.limit(
              rig.db(),
              rig.limit(),
              backlog,
              LimitPipeline.Mode.TRANSACTION_PER_BATCH_ONE_PARTITION));
      plain.add(drains.limit(rig.db(), rig.limit(), backlog, LimitPipeline.Mode.PLAIN));
    }
    report.add(
        new Result(
            "P1t",
            "limit pipeline + a Kafka transaction per batch",
            "limit pipeline",
            true,
            figure("msg/s", transactional, Drains.Run::perSecond),
            figure("msg/s", plain, Drains.Run::perSecond),
            NO_TARGET,
            "no Outboxer in either: what Kafka transactions alone cost",
            cpu(transactional, plain)));
    report.add(
        new Result(
            "P1p",
            "limit pipeline + a Kafka transaction per batch into one topic partition",
            "limit pipeline",
            true,
            figure("msg/s", onePartition, Drains.Run::perSecond),
            figure("msg/s", plain, Drains.Run::perSecond),
            NO_TARGET,
            "no Outboxer in either: a transaction that touches one topic partition instead of all",
            cpu(onePartition, plain)));
  }

  /**
   * P1 into JMS: the outbox {@value #JMS_OUTBOX} (8 partitions, the defaults) relays a backlog to
   * the embedded messaging engine, beside the JMS limit pipeline, which runs in the server (see
   * {@link JmsLimit}). The product's backlog is revived from dead by the admin API, whose commit
   * wakes the outbox's workers (nothing in the demo publishes to it): timed from the revive's
   * answer; the limit pipeline's from its request.
   */
  private void p1IntoJms() throws Exception {
    JmsLimit limit = new JmsLimit(rig);
    drainScenario(
        "P1j",
        "drain " + jmsBacklog + " msgs, " + groups + " groups -> JMS",
        "limit pipeline into JMS",
        "Liberty's embedded messaging engine, persistent messages to a queue; the limit pipeline"
            + " in the server (JDBC, a JMSContext per partition); the product's backlog revived"
            + " from dead by the admin API, timed from its answer; the queue emptied before each"
            + " run",
        jmsBacklog / 2,
        jmsBacklog,
        n -> drains.productIntoJms(n, limit),
        n -> drains.limitIntoJms(n, limit));
  }

  /**
   * P1 on SQLite: the server restarted on a SQLite file (its default database: one connection, one
   * writer at a time), the same drain into Kafka of a smaller backlog, beside the limit pipeline on
   * the same file (8 threads, a connection each, waiting for the writer's lock as the server's pool
   * waits for its connection). Then the server is restarted on PostgreSQL for the scenarios after.
   */
  private void p1OnSqlite() throws Exception {
    SqliteDb sqlite = new SqliteDb(out.resolve("sqlite/outboxer.db"));
    try {
      System.out.println("bench: restarting Liberty on SQLite " + sqlite.file());
      rig.restart(Rig.onSqlite(sqlite));
      try (LimitPipeline limit =
          new LimitPipeline(
              "sqlite",
              sqlite,
              rig.kafka().bootstrapServers(),
              rig.topic(),
              rig.partitions(),
              rig.batchSize())) {
        drainScenario(
            "P1s",
            "drain " + sqliteBacklog + " msgs on SQLite, " + groups + " groups -> Kafka",
            "limit pipeline on SQLite",
            "the server restarted on a SQLite file (pool of one connection); the limit pipeline's"
                + " 8 threads on the same file, a connection each",
            sqliteBacklog / 2,
            sqliteBacklog,
            n -> drains.product(sqlite, n),
            n -> drains.limit(sqlite, limit, n, LimitPipeline.Mode.PLAIN));
      }
    } catch (Exception | AssertionError e) {
      restartOnPostgresql(e);
      throw e;
    }
    restartOnPostgresql(null);
  }

  /**
   * Brings the server back onto the bench's PostgreSQL database for the scenarios after P1s; a
   * failure to do so is added to {@code failed}, P1s's own failure, when there is one.
   */
  private void restartOnPostgresql(Throwable failed) throws Exception {
    System.out.println("bench: restarting Liberty on PostgreSQL");
    try {
      rig.restart(Rig.onPostgresql(rig.db()));
    } catch (Exception e) {
      if (failed == null) {
        throw e;
      }
      failed.addSuppressed(e);
    }
  }

  /**
   * One more drain of the product's, recorded by JDK Flight Recorder in the server: where the
   * workers' time goes, per stage of a batch. Then P2's business transaction with and without its
   * publish, recorded alike: where the server's CPU goes per transaction.
   */
  private void profile() throws Exception {
    Files.createDirectories(out);
    Path recording = out.resolve("liberty-drain.jfr");
    long pid = rig.server().pid();
    Profile.jcmd(
        pid,
        "JFR.start",
        "name=bench",
        "settings=" + Profile.settings(out),
        "filename=" + recording);
    Drains.Run run = drains.product(rig.db(), backlog);
    Profile.jcmd(pid, "JFR.stop", "name=bench");
    report.profile(
        "drain",
        "ms",
        Profile.workerTime(recording),
        "the product's drain of "
            + backlog
            + " messages at "
            + Math.round(run.perSecond())
            + " msg/s under the recording; worker threads' ms by stage, "
            + recording.getFileName()
            + " holds the recording");
    load.profilePublishing(out);
  }

  private void p5() throws Exception {
    // Windows of two batches per partition, so that a window holds whole batches; the small
    // backlog holds two and a half windows per partition (10,000 messages up to batch-size 250).
    // The first window of each backlog (the wake-up, the first reads) is left out in both cases,
    // so both are timed in full stride. A small backlog gives one such window per partition, so
    // each repetition drains three of them: one window's spread alone (eight partitions sharing
    // two cores) moved the ratio from 1.1 to 3.5 in a run where each repetition drained one.
    int perPartition = 2 * rig.batchSize();
    int small = Math.max(10_000, perPartition * rig.partitions() * 5 / 2);
    int smallBacklogs = 3 * reps;
    List<Double> productSmall = new ArrayList<>();
    List<Double> limitSmall = new ArrayList<>();
    for (int r = 0; r < smallBacklogs; r++) {
      productSmall.add(drains.timePerBatch(true, small, perPartition, 2).get(1));
      limitSmall.add(drains.timePerBatch(false, small, perPartition, 2).get(1));
    }
    // The large backlog's windows are five times as long: the bench sees a window end by polling
    // each partition's first ready row, and under the drain's load on two cores one round of those
    // polls can outlast a window of two batches, which then reads as no time at all.
    int perPartitionLarge = 5 * perPartition;
    List<Double> productLarge = drains.timePerBatch(true, large, perPartitionLarge, reps + 1);
    List<Double> limitLarge = drains.timePerBatch(false, large, perPartitionLarge, reps + 1);
    productLarge = productLarge.subList(1, productLarge.size());
    limitLarge = limitLarge.subList(1, limitLarge.size());
    String unit = "ms/batch";
    String how = "batch-size " + rig.batchSize() + ", all partitions draining";
    report.add(
        new Result(
            "P5a",
            "time per batch, " + small + " pending",
            "limit pipeline",
            false,
            new Figure(unit, productSmall),
            new Figure(unit, limitSmall),
            NO_TARGET,
            how
                + "; each partition timed on its own second window of "
                + perPartition
                + " rows, in each of "
                + smallBacklogs
                + " backlogs",
            Map.of()));
    report.add(
        new Result(
            "P5b",
            "time per batch, " + large + " pending",
            "limit pipeline",
            false,
            new Figure(unit, productLarge),
            new Figure(unit, limitLarge),
            NO_TARGET,
            how
                + "; each partition timed on its own windows of "
                + perPartitionLarge
                + " rows, one backlog, its windows 2 to "
                + (reps + 1)
                + " as repetitions",
            Map.of()));
    report.add(
        new Result(
            "P5",
            "time per batch, " + large + " vs " + small + " pending",
            "product, " + small + " pending",
            false,
            new Figure(unit, productLarge),
            new Figure(unit, productSmall),
            1.3,
            "does a batch cost more when the backlog is large?",
            Map.of()));
  }

  private void p4() throws Exception {
    int poisoned = 100_000;
    List<Drains.Run> with = new ArrayList<>();
    List<Drains.Run> without = new ArrayList<>();
    List<long[]> withEnds = new ArrayList<>();
    List<long[]> withoutEnds = new ArrayList<>();
    List<long[]> leftOut = new ArrayList<>();
    // A pair left out first, as P1's warm-up: in every run that recorded each partition's end,
    // the first poisoned repetition was the slowest in all eight partitions alike (5.3 to 5.6 s
    // against 2 to 3 s), and it would always fall on the poisoned side.
    drains.poisoned(othersBacklog, poisoned, leftOut);
    drains.poisoned(othersBacklog, 0, leftOut);
    // Its repetitions stop a minute past the budget (the run's 13th minute), the report saying so.
    while (with.size() < reps && (with.isEmpty() || minutesUsed() < budgetMinutes + 1)) {
      with.add(drains.poisoned(othersBacklog, poisoned, withEnds));
      without.add(drains.poisoned(othersBacklog, 0, withoutEnds));
    }
    report.note(
        "P4: each partition's end in ms after the commit, partitions 0 to "
            + (rig.partitions() - 1)
            + ", the poisoned group in partition "
            + drains.poisonedPartition()
            + ": with it "
            + ends(withEnds)
            + "; without "
            + ends(withoutEnds)
            + "; the pair left out "
            + ends(leftOut));
    if (with.size() < reps) {
      report.note("P4 ran " + with.size() + " of " + reps + " repetitions within the time limit");
    }
    report.add(
        new Result(
            "P4",
            "others' drain, poisoned group of " + poisoned + " ahead",
            "product, no poisoned group",
            true,
            figure("msg/s", with, Drains.Run::perSecond),
            figure("msg/s", without, Drains.Run::perSecond),
            0.95,
            "head refused by Kafka (1.5 MB > max.request.size), retried forever; "
                + othersBacklog
                + " messages of other groups behind it",
            cpu(with, without)));
  }

  private static String ends(List<long[]> runs) {
    return runs.stream().map(Arrays::toString).collect(Collectors.joining(", "));
  }

  static <T> Figure figure(String unit, List<T> runs, ToDoubleFunction<T> value) {
    return new Figure(unit, runs.stream().mapToDouble(value).boxed().toList());
  }

  private static Map<String, Map<String, Double>> cpu(
      List<Drains.Run> product, List<Drains.Run> reference) {
    return Map.of(
        "product", Drains.averageCores(product), "reference", Drains.averageCores(reference));
  }
}
