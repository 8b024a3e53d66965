package io.outboxer.bench;

import static org.awaitility.Awaitility.await;

import io.outboxer.internal.rules.Partitioner;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * P1 (on PostgreSQL, on SQLite, into JMS), P4, P5, W1 and W3: backlogs written straight into the
 * outbox table, drained by the product (the server's workers, woken by one publish per partition,
 * by an operator's revive, or finding it at their poll) and by a limit pipeline.
 */
final class Drains {

  private static final String PAID_AT = "2026-01-01T00:00:00.000000Z";
  private static final int POISON_ORDER = 900_000_000;
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  private final Rig rig;
  private final int groups;

  Drains(Rig rig, int groups) {
    this.rig = rig;
    this.groups = groups;
  }

  /**
   * Messages per second of the product's drain of {@code count} messages from {@code table} (the
   * server's database), and the CPU it used: timed from the wake-up to the deletion of each
   * partition's newest row (a worker deletes its rows in id order), looked up by id every 10 ms. A
   * scan for what is left would walk the index entries of the rows deleted until then, as many as
   * the backlog, in the bench's own queries beside the product's. Then every message must be on the
   * topic (read after the drain, untimed): a drain that deleted rows without their records would
   * otherwise be timed as a fast one.
   */
  Run product(OutboxTable table, int count) throws Exception {
    table.clear();
    List<String> wake = rig.wakeOrders();
    try (Received received = new Received(rig.kafka().bootstrapServers(), rig.topic())) {
      Long[] newest = table.insertBacklog(Db.OUTBOX, count, groups, rig.partitions(), PAID_AT);
      Run run =
          measure(
              count,
              () -> {
                rig.wakeAll(wake);
                awaitGone(table, newest);
                return null;
              });
      received.require(count, Rig.WAKE_KEYS, Duration.ofMinutes(1), "the product's drain");
      return run;
    }
  }

  /** Waits until no row of {@code ids} is left in {@code table}, looking every 10 ms. */
  private static void awaitGone(OutboxTable table, Long[] ids) throws Exception {
    try (Connection c = table.connect()) {
      await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(10)).until(() -> !table.anyOf(c, ids));
    }
  }

  /**
   * Messages per second of the product's drain of {@code count} messages of {@code outbox}, which
   * its workers find only once it is revived. The backlog is written dead (in the transaction that
   * inserts it, before any poll can see it) and revived by the admin API (one statement, whose
   * commit wakes every partition, as an operator's would): timed from the revive's answer to the
   * deletion of each partition's newest row, looked up by id every 10 ms.
   */
  Run revived(String outbox, int count) throws Exception {
    rig.db().clear();
    Long[] newest = rig.db().insertDead(outbox, count, groups, rig.partitions(), PAID_AT);
    return measure(
        count,
        () -> {
          rig.reviveDead(outbox, count);
          Start start = now();
          awaitGone(rig.db(), newest);
          return start;
        });
  }

  /**
   * P1 into JMS: the product's drain of {@code count} messages of the outbox {@link
   * Scenarios#JMS_OUTBOX}, {@link #revived revived} from dead; the queue is emptied before, and
   * must hold every message after.
   */
  Run productIntoJms(int count, JmsLimit limit) throws Exception {
    limit.purge();
    Run run = revived(Scenarios.JMS_OUTBOX, count);
    long queued = limit.purge();
    if (queued < count) {
      throw new IllegalStateException("the queue held " + queued + " of " + count + " messages");
    }
    return run;
  }

  /**
   * P1 into JMS's reference: the JMS limit pipeline's drain of {@code count} messages, timed from
   * its request to its answer; the queue is emptied before, and held every message after.
   */
  Run limitIntoJms(int count, JmsLimit limit) throws Exception {
    limit.purge();
    rig.db().clear();
    rig.db().insertBacklog(Rig.LIMIT_OUTBOX, count, groups, rig.partitions(), PAID_AT);
    Run run =
        measure(
            count,
            () -> {
              long sent = limit.drain(Rig.LIMIT_OUTBOX);
              if (sent != count) {
                throw new IllegalStateException(
                    "the JMS limit pipeline sent " + sent + " of " + count + " messages");
              }
              return null;
            });
    long queued = limit.purge();
    if (queued != count) {
      throw new IllegalStateException("the queue held " + queued + " of " + count + " messages");
    }
    return run;
  }

  /**
   * Waits until the workers deleted some of the {@code count} rows of {@code outbox}: the rows
   * left.
   */
  private long awaitFirstDeletion(String outbox, int count) {
    long[] left = new long[1];
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> (left[0] = rig.db().count(outbox)) < count);
    return left[0];
  }

  /**
   * W3: as {@link #polled}, of {@code count} messages in the partitions of the outbox that waits
   * for writers but partition 0, with what {@code beside} opens (when it opens anything) open from
   * before the backlog is written until the drain ended. Timed to the end of the last partition,
   * found by the deletion of each partition's newest row (a worker deletes its rows in id order): a
   * scan for what is left would walk the index entries of every row deleted meanwhile, which the
   * open transaction keeps, and charge the product's run for the bench's own question.
   */
  Run polledBeside(int count, Callable<AutoCloseable> beside) throws Exception {
    rig.db().clear();
    try (AutoCloseable open = beside.call()) {
      Long[] newest = rig.db().insertBeside(Db.OUTBOX, count, groups, rig.partitions(), 0, PAID_AT);
      long[] left = new long[1];
      return measure(
          0,
          () -> {
            left[0] = awaitFirstDeletion(Db.OUTBOX, count);
            Start started = now();
            try (Connection c = rig.db().connect()) {
              awaitDrained(() -> !rig.db().anyOf(c, newest));
            }
            return started;
          },
          () -> left[0]);
    }
  }

  /**
   * Messages per second of {@code limit}'s drain of {@code count} messages from {@code table}, in
   * {@code mode} (with or without a Kafka transaction per batch).
   */
  Run limit(OutboxTable table, LimitPipeline limit, int count, LimitPipeline.Mode mode)
      throws Exception {
    table.clear();
    table.insertBacklog(Rig.LIMIT_OUTBOX, count, groups, rig.partitions(), PAID_AT);
    limit.open();
    return measure(
        count,
        () -> {
          limit.drain(Rig.LIMIT_OUTBOX, mode, () -> false);
          return null;
        });
  }

  /**
   * P4: the product's drain of {@code count} messages of other groups while a group of {@code
   * poisoned} rows whose head Kafka refuses (1.5 MB, over the producer's max.request.size) sits at
   * the head of its partition, retried forever (max-attempts infinity, the default); with none,
   * P4's reference. Timed from the commit of the others' backlog (the workers are woken at once) to
   * the deletion of each partition's newest row, both runs alike: the poisoned group's worker is
   * already running and finds the backlog before the wake-ups, and a run timed from its first
   * deletion would charge it for the other workers' wake-up. Searches for the rows left would walk
   * the poisoned group's rows as long as they are ready, in the bench's own queries beside the
   * product's: the bench looks up each partition's newest row by id instead, every 10 ms from the
   * end of the wake-ups (which take a few ms against a drain of seconds), and adds to {@code ends}
   * when each partition ended (ms after the commit, by partition).
   */
  Run poisoned(int count, int poisoned, List<long[]> ends) throws Exception {
    rig.db().clear();
    if (poisoned > 0) {
      String big = "x".repeat(1_500_000);
      rig.db().insert(Db.OUTBOX, 1, 1, POISON_ORDER, rig.partitions(), big);
      rig.db().insert(Db.OUTBOX, poisoned - 1, 1, POISON_ORDER, rig.partitions(), PAID_AT);
    }
    List<String> wake = rig.wakeOrders();
    try (Connection c = rig.db().connect()) {
      return measure(
          count,
          () -> {
            Long[] newest =
                rig.db().insertNewest(Db.OUTBOX, count, groups, 0, rig.partitions(), PAID_AT);
            long committed = System.nanoTime();
            if (newest.length != rig.partitions()) {
              throw new IllegalStateException(
                  "P4 needs rows of other groups in each of the "
                      + rig.partitions()
                      + " partitions, and "
                      + newest.length
                      + " got some: raise bench.groups");
            }
            rig.wakeAll(wake);
            Start started = new Start(committed, rig.meter().sample());
            long[] ended = new long[newest.length];
            await()
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> partitionsEnded(c, newest, ended, committed));
            ends.add(ended);
            return started;
          });
    }
  }

  /**
   * Whether every partition's newest row is deleted; records in {@code ended} when each was first
   * seen gone, in ms after {@code since}.
   */
  private boolean partitionsEnded(Connection c, Long[] newest, long[] ended, long since)
      throws SQLException {
    Set<Long> left = rig.db().left(c, newest);
    long now = Math.max(1, (System.nanoTime() - since) / 1_000_000);
    for (int p = 0; p < newest.length; p++) {
      if (ended[p] == 0 && !left.contains(newest[p])) {
        ended[p] = now;
      }
    }
    return left.isEmpty();
  }

  /** The partition of the poisoned group of {@link #poisoned}. */
  int poisonedPartition() {
    return Partitioner.partitionOf("order:" + POISON_ORDER, rig.partitions());
  }

  /**
   * P5: one partition's time per batch (ms) with a backlog of {@code pending} messages. Each
   * partition's time to drain its next {@code perPartition} rows, per batch, averaged over the
   * partitions, for {@code windows} consecutive windows: the first from the wake-up, the next ones
   * each from the partition's end of the previous. Each partition is timed on its own rows, so the
   * partitions' different speeds do not blur the windows. The product's when {@code product}, else
   * the limit pipeline's.
   */
  List<Double> timePerBatch(boolean product, int pending, int perPartition, int windows)
      throws Exception {
    rig.db().clear();
    String outbox = product ? Db.OUTBOX : Rig.LIMIT_OUTBOX;
    int partitions = rig.partitions();
    long[][][] bounds =
        rig.db().insertWindows(outbox, pending, groups, partitions, PAID_AT, perPartition, windows);
    AtomicBoolean stop = new AtomicBoolean();
    rig.limit().open();
    // The wake-ups (the product) or the limit pipeline run beside the polling, which must start
    // at once: the first windows end while the wake-up requests are still being answered.
    Thread drain =
        new Thread(
            () -> {
              try {
                if (product) {
                  rig.wakeAll(rig.wakeOrders());
                } else {
                  rig.limit().drain(Rig.LIMIT_OUTBOX, LimitPipeline.Mode.PLAIN, stop::get);
                }
              } catch (Exception e) {
                throw new IllegalStateException("starting the drain failed", e);
              }
            });
    long start = System.nanoTime();
    drain.start();
    long[][] doneAt = new long[partitions][windows];
    int[] next = new int[partitions];
    try (Connection c = rig.db().connect()) {
      long deadline = start + TIMEOUT.toNanos();
      int open = partitions;
      while (open > 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("P5's windows did not drain within " + TIMEOUT);
        }
        for (int p = 0; p < partitions; p++) {
          if (next[p] == windows) {
            continue;
          }
          long first = rig.db().firstReady(c, outbox, p);
          long now = System.nanoTime();
          while (next[p] < windows && (first == 0 || first > bounds[p][next[p]][0])) {
            doneAt[p][next[p]++] = now;
            open -= next[p] == windows ? 1 : 0;
          }
        }
        Thread.sleep(10);
      }
    } finally {
      stop.set(true);
      drain.join();
    }
    rig.db().clear();
    List<Double> perBatch = new ArrayList<>();
    for (int k = 0; k < windows; k++) {
      double sum = 0;
      for (int p = 0; p < partitions; p++) {
        long from = k == 0 ? start : doneAt[p][k - 1];
        double batches = (double) bounds[p][k][1] / rig.batchSize();
        sum += (doneAt[p][k] - from) / 1e6 / batches;
      }
      perBatch.add(sum / partitions);
    }
    return perBatch;
  }

  /** A drain's throughput and the cores each component used meanwhile. */
  record Run(double perSecond, Map<String, Double> cores) {}

  /** Where a run's timing starts: a nanoTime, and the CPU counters then. */
  private record Start(long nanos, CpuMeter.Sample cpu) {}

  /** The CPU counters, then the time: the sample (a few ms) stays out of the timed interval. */
  private Start now() throws Exception {
    CpuMeter.Sample cpu = rig.meter().sample();
    return new Start(System.nanoTime(), cpu);
  }

  /**
   * Times {@code drain}, and the CPU it used: from now, or from the start it returns when it set
   * itself up first, to its end.
   */
  private Run measure(int messages, Callable<Start> drain) throws Exception {
    return measure(messages, drain, () -> 0L);
  }

  /** As above, plus the messages {@code counted} once the drain returned. */
  private Run measure(int messages, Callable<Start> drain, Callable<Long> counted)
      throws Exception {
    Start start = now();
    Start started = drain.call();
    if (started != null) {
      start = started;
    }
    long end = System.nanoTime();
    CpuMeter.Sample endCpu = rig.meter().sample();
    double total = messages + counted.call();
    return new Run(total / ((end - start.nanos()) / 1e9), CpuMeter.cores(start.cpu(), endCpu));
  }

  /** Waits until the product's outbox holds no row. */
  static void awaitEmpty(Db db) {
    awaitDrained(() -> !db.anyLeft(Db.OUTBOX));
  }

  private static void awaitDrained(Callable<Boolean> drained) {
    await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(100)).until(drained);
  }

  /** The average of each component's cores over {@code runs}. */
  static Map<String, Double> averageCores(List<Run> runs) {
    return averageOf(runs.stream().map(Run::cores).toList());
  }

  /** The average of each component's cores over {@code samples}. */
  static Map<String, Double> averageOf(List<Map<String, Double>> samples) {
    Map<String, Double> sum = new LinkedHashMap<>();
    samples.forEach(c -> c.forEach((k, v) -> sum.merge(k, v / samples.size(), Double::sum)));
    sum.replaceAll((k, v) -> Math.round(v * 100) / 100.0);
    return sum;
  }
}
