package io.outboxer.bench;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * P1, P4 and P5: backlogs written straight into the outbox table, drained by the product (the
 * server's workers, woken by one publish per partition) and by the limit pipeline.
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

  /** Messages per second of the product's drain of {@code count} messages, and the CPU it used. */
  Run product(int count) throws Exception {
    rig.truncate();
    List<String> wake = rig.wakeOrders();
    rig.db().insert(Db.OUTBOX, count, groups, 0, rig.partitions(), PAID_AT);
    return measure(
        count + wake.size(),
        () -> {
          rig.wakeAll(wake);
          awaitDrained(() -> !rig.db().anyLeft(Db.OUTBOX, null));
          return null;
        });
  }

  /**
   * Messages per second of the limit pipeline's drain of {@code count} messages; with {@code
   * transactional}, one Kafka transaction per batch.
   */
  Run limit(int count, boolean transactional) throws Exception {
    rig.truncate();
    rig.db().insert(Rig.LIMIT_OUTBOX, count, groups, 0, rig.partitions(), PAID_AT);
    return measure(count, () -> rig.limit().drain(Rig.LIMIT_OUTBOX, transactional, () -> false));
  }

  /**
   * P4: the product's drain of {@code count} messages of other groups while a group of {@code
   * poisoned} rows whose head Kafka refuses (1.5 MB, over the producer's max.request.size) sits at
   * the head of its partition, retried forever (max-attempts infinity, the default).
   */
  Run poisoned(int count, int poisoned) throws Exception {
    rig.truncate();
    String big = "x".repeat(1_500_000);
    rig.db().insert(Db.OUTBOX, 1, 1, POISON_ORDER, rig.partitions(), big);
    rig.db().insert(Db.OUTBOX, poisoned - 1, 1, POISON_ORDER, rig.partitions(), PAID_AT);
    List<String> wake = rig.wakeOrders();
    rig.db().insert(Db.OUTBOX, count, groups, 0, rig.partitions(), PAID_AT);
    String group = "order:" + POISON_ORDER;
    return measure(
        count + wake.size(),
        () -> {
          rig.wakeAll(wake);
          awaitDrained(() -> !rig.db().anyLeft(Db.OUTBOX, group));
          return null;
        });
  }

  /**
   * P5: time per batch (ms, one partition's worker) over {@code windows} consecutive windows of
   * {@code window} messages each, after a first window left out (the start), from a backlog of
   * {@code pending} messages; the product's when {@code product}, else the limit pipeline's.
   */
  List<Double> timePerBatch(boolean product, int pending, int window, int windows)
      throws Exception {
    rig.truncate();
    String outbox = product ? Db.OUTBOX : Rig.LIMIT_OUTBOX;
    long last = rig.db().insert(outbox, pending, groups, 0, rig.partitions(), PAID_AT);
    long first = last - pending + 1;
    AtomicBoolean stop = new AtomicBoolean();
    Thread limitRun = null;
    if (product) {
      rig.wakeAll(rig.wakeOrders());
    } else {
      limitRun =
          new Thread(
              () -> {
                try {
                  rig.limit().drain(Rig.LIMIT_OUTBOX, false, stop::get);
                } catch (Exception e) {
                  throw new IllegalStateException("the limit pipeline failed", e);
                }
              });
      limitRun.start();
    }
    List<Double> perBatch = new ArrayList<>();
    long previous = System.nanoTime();
    for (int w = 0; w <= windows; w++) {
      long upTo = first + (w + 1L) * window - 1;
      awaitDrained(() -> rig.db().pendingUpTo(outbox, upTo) == 0);
      long now = System.nanoTime();
      if (w > 0) {
        perBatch.add(msPerBatch(window, now - previous));
      }
      previous = now;
    }
    stop.set(true);
    if (limitRun != null) {
      limitRun.join();
    }
    rig.truncate();
    return perBatch;
  }

  /** One partition's time per batch, in ms, when the partitions drained {@code messages} in it. */
  double msPerBatch(int messages, long nanos) {
    double batchesPerPartition = (double) messages / rig.batchSize() / rig.partitions();
    return nanos / 1e6 / batchesPerPartition;
  }

  /** A drain's throughput and the cores each component used meanwhile. */
  record Run(double perSecond, Map<String, Double> cores) {}

  /**
   * Times {@code drain}: from now, or from the time it returns (a nanoTime) when it set itself up
   * first, to its end.
   */
  private Run measure(int messages, Callable<Long> drain) throws Exception {
    CpuMeter.Sample before = rig.meter().sample();
    long start = System.nanoTime();
    Long started = drain.call();
    if (started != null) {
      start = started;
    }
    long end = System.nanoTime();
    CpuMeter.Sample after = rig.meter().sample();
    return new Run(messages / ((end - start) / 1e9), CpuMeter.cores(before, after));
  }

  /** Waits until the product's outbox holds no row. */
  static void awaitEmpty(Db db) {
    awaitDrained(() -> !db.anyLeft(Db.OUTBOX, null));
  }

  private static void awaitDrained(Callable<Boolean> drained) {
    await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(100)).until(drained);
  }

  /** The average of each component's cores over {@code runs}. */
  static Map<String, Double> averageCores(List<Run> runs) {
    Map<String, Double> sum = new LinkedHashMap<>();
    runs.forEach(r -> r.cores().forEach((k, v) -> sum.merge(k, v / runs.size(), Double::sum)));
    sum.replaceAll((k, v) -> Math.round(v * 100) / 100.0);
    return sum;
  }
}
