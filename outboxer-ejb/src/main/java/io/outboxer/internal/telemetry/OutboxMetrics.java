package io.outboxer.internal.telemetry;

import io.outboxer.internal.config.OutboxerRuntime;
import io.outboxer.internal.store.Backlog;
import io.outboxer.internal.store.BacklogStore;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * Outboxer's metrics in the application registry of MicroProfile Metrics, labelled by outbox
 * (docs/operations.md lists them). Counters count what this server did; the gauges read what the
 * database holds, for all outboxes in one aggregate query, at most once per {@link #REFRESH}.
 */
@ApplicationScoped
public class OutboxMetrics {

  /** How long the gauges' figures are kept before the next scrape reads them again. */
  static final Duration REFRESH = Duration.ofSeconds(2);

  private static final Logger LOG = Logger.getLogger(OutboxMetrics.class.getName());
  private static final Object PUBLISHED_KEY = new Object();
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

  /** The counters per outbox, by name (outboxer.<name>), with their descriptions. */
  private static final Map<String, String> COUNTERS =
      Map.of(
          "published", "Messages published in transactions that committed, on this server",
          "delivered", "Messages the relay confirmed, delivered by this server",
          "failed", "Failed delivery attempts charged to messages, on this server",
          "dead", "Messages that failed their last allowed attempt on this server");

  @Inject private MetricRegistry registry;
  @Inject private BacklogStore backlogs;
  @Inject private OutboxerRuntime runtime;
  @Resource private TransactionSynchronizationRegistry transactions;
  @Resource private ManagedExecutorService executor;

  private Map<String, Backlog> backlog;
  private long readAt;

  /**
   * Counts a message published in the current transaction, once the transaction commits. Messages
   * of a rolled-back transaction are not counted.
   */
  public void publishedOnCommit(String outbox) {
    @SuppressWarnings("unchecked")
    Map<String, Integer> published = (Map<String, Integer>) transactions.getResource(PUBLISHED_KEY);
    if (published == null) {
      Map<String, Integer> counts = new HashMap<>();
      published = counts;
      transactions.putResource(PUBLISHED_KEY, counts);
      transactions.registerInterposedSynchronization(
          new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int status) {
              if (status == Status.STATUS_COMMITTED) {
                counts.forEach((name, n) -> counter("published", name).inc(n));
              }
            }
          });
    }
    published.merge(outbox, 1, Integer::sum);
  }

  /** Registers the gauges of {@code outbox} and returns the sink of its workers' events. */
  public DeliveryEvents watch(String outbox) {
    gauge(
        outbox,
        "pending.messages",
        "Messages still to be delivered",
        MetricUnits.NONE,
        Backlog::pending);
    gauge(
        outbox,
        "dead.messages",
        "Dead messages, waiting for an operator",
        MetricUnits.NONE,
        Backlog::dead);
    gauge(
        outbox,
        "held.groups",
        "Groups whose head failed and holds back their later messages",
        MetricUnits.NONE,
        Backlog::heldGroups);
    gaugeSeconds(outbox);
    stalledGauge(outbox);
    counter("published", outbox); // registered now, so that it is scraped as 0 before the first
    Counter delivered = counter("delivered", outbox);
    Counter failed = counter("failed", outbox);
    Counter dead = counter("dead", outbox);
    Timer relayCalls =
        registry.timer(
            Metadata.builder()
                .withName("outboxer.relay.call")
                .withDescription("How long calls of the relay took, successful or not")
                .withUnit(MetricUnits.SECONDS)
                .build(),
            tag(outbox));
    Map<DeliveryEvents.LeaseChange, Counter> leases = new HashMap<>();
    for (DeliveryEvents.LeaseChange change : DeliveryEvents.LeaseChange.values()) {
      leases.put(
          change,
          registry.counter(
              Metadata.builder()
                  .withName("outboxer.lease.changes")
                  .withDescription(
                      "Partition leases this server took, handed back or lost (hand-overs)")
                  .build(),
              tag(outbox),
              new Tag("change", change.name().toLowerCase(Locale.ROOT).replace('_', '-'))));
    }
    return new DeliveryEvents() {
      @Override
      public void relayCalled(Duration took) {
        relayCalls.update(took);
      }

      @Override
      public void completed(int deliveredCount, int failedCount, int deadCount) {
        delivered.inc(deliveredCount);
        failed.inc(failedCount);
        dead.inc(deadCount);
      }

      @Override
      public void lease(LeaseChange change) {
        leases.get(change).inc();
      }
    };
  }

  private Counter counter(String what, String outbox) {
    return registry.counter(
        Metadata.builder().withName("outboxer." + what).withDescription(COUNTERS.get(what)).build(),
        tag(outbox));
  }

  private void gauge(
      String outbox, String name, String description, String unit, ToLongFunction<Backlog> value) {
    register(
        Metadata.builder()
            .withName("outboxer." + name)
            .withDescription(description)
            .withUnit(unit)
            .build(),
        outbox,
        b -> (double) value.applyAsLong(b));
  }

  private void gaugeSeconds(String outbox) {
    register(
        Metadata.builder()
            .withName("outboxer.oldest.pending.age")
            .withDescription("How long the oldest pending message has waited (database clock)")
            .withUnit(MetricUnits.SECONDS)
            .build(),
        outbox,
        b -> b.oldestPendingMillis() / 1000.0);
  }

  /**
   * The partitions of {@code outbox} whose worker stalled: read from the workers, not the database.
   */
  private void stalledGauge(String outbox) {
    String prefix = outbox + ".partition.";
    try {
      registry.gauge(
          Metadata.builder()
              .withName("outboxer.stalled.partitions")
              .withDescription(
                  "Partitions whose worker made no progress for minutes, on this server")
              .withUnit(MetricUnits.NONE)
              .build(),
          runtime,
          r -> r.stalledPartitions().keySet().stream().filter(k -> k.startsWith(prefix)).count(),
          tag(outbox));
    } catch (IllegalArgumentException e) {
      LOG.fine("gauge outboxer.stalled.partitions of outbox " + outbox + " exists: " + e);
    }
  }

  private void register(Metadata metadata, String outbox, Function<Backlog, Double> value) {
    try {
      registry.gauge(
          metadata,
          this,
          metrics -> {
            Map<String, Backlog> all = metrics.backlog();
            return all == null ? Double.NaN : value.apply(all.getOrDefault(outbox, Backlog.EMPTY));
          },
          tag(outbox));
    } catch (IllegalArgumentException e) {
      // Another application in this server runs the same outbox and registered it first: its
      // gauge reads the same database.
      LOG.fine("gauge " + metadata.getName() + " of outbox " + outbox + " exists: " + e);
    }
  }

  private static Tag tag(String outbox) {
    return new Tag("outbox", outbox);
  }

  /**
   * Every outbox's backlog, read again when older than {@link #REFRESH}; null when it cannot be
   * read. The read runs on the application's managed executor, where its data source resolves,
   * whatever thread serves the scrape.
   */
  synchronized Map<String, Backlog> backlog() {
    long now = System.nanoTime();
    if (backlog == null || now - readAt > REFRESH.toNanos()) {
      try {
        backlog =
            executor.submit(backlogs::backlog).get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        readAt = now;
      } catch (ExecutionException | TimeoutException | RuntimeException e) {
        LOG.log(Level.WARNING, "OUTBOXER-6001 cannot read the outboxes' backlog for metrics", e);
        backlog = null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        backlog = null;
      }
    }
    return backlog;
  }
}
