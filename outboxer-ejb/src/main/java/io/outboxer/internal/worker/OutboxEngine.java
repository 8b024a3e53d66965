package io.outboxer.internal.worker;

import io.outboxer.internal.config.EngineConfig;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.OutboxerRuntime;
import io.outboxer.internal.config.WakeUp;
import io.outboxer.internal.relay.Relays;
import io.outboxer.internal.rules.LeaseTerms;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.store.Database;
import io.outboxer.internal.store.LeaseStore;
import io.outboxer.internal.store.MessageStore;
import io.outboxer.internal.telemetry.DeliveryEvents;
import io.outboxer.internal.telemetry.OutboxMetrics;
import io.outboxer.spi.Relay;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts Outboxer's delivery with the application: creates the schema, connects the relay of each
 * outbox that is not refused, and runs one {@link PartitionWorker} per partition on the managed
 * scheduled executor, polled at the poll interval and woken by {@link WakeUp}s; stops them with the
 * application.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionManagement(TransactionManagementType.BEAN)
public class OutboxEngine {

  private static final Logger LOG = Logger.getLogger(OutboxEngine.class.getName());

  /** How long stopping waits, in all, for the workers' runs under way to end. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  /**
   * How long a worker may make no progress before readiness and the metric {@code
   * outboxer_stalled_partitions} name its partition: above the longest wait that ends by itself (a
   * connection from the pool, 60 s on SQLite; the engine's turn on SQLite, 30 s; a relay call, a
   * third of the lease ttl).
   */
  static final Duration STALL_AFTER = Duration.ofMinutes(2);

  @Resource private ManagedScheduledExecutorService executor;
  @Inject private OutboxerRuntime runtime;
  @Inject private Database database;
  @Inject private MessageStore messages;
  @Inject private LeaseStore leases;
  @Inject private OutboxMetrics metrics;

  private EngineConfig settings;
  private final Map<String, PartitionWorker[]> workers = new LinkedHashMap<>();
  private final Map<String, NodeShare> shares = new LinkedHashMap<>();
  private final List<Relay> relays = new ArrayList<>();
  private final List<Future<?>> polls = new ArrayList<>();

  @PostConstruct
  void start() {
    settings = runtime.settings();
    if (settings.createSchema()) {
      database.installSchema();
    }
    LeaseTerms terms = settings.leaseTerms();
    database.boundLockWaits(terms.ttl());
    List<String> commitOrderProblems =
        settings.outboxes().values().stream().anyMatch(OutboxConfig::waitsForWriters)
            ? messages.commitOrderProblems()
            : List.of();
    for (OutboxConfig outbox : settings.outboxes().values()) {
      DeliveryEvents events = metrics.watch(outbox.name());
      Optional<String> refusal =
          Optional.ofNullable(outbox.commitOrderRefusal(commitOrderProblems))
              .or(
                  () ->
                      leases.recordOutbox(
                          outbox.name(),
                          outbox.sharedTerms(),
                          settings.nodeId(),
                          terms.ttl(),
                          settings.deliveryEnabled()));
      if (refusal.isPresent()) {
        runtime.refuse(outbox.name(), refusal.get());
        LOG.severe(refusal.get());
        continue;
      }
      if (outbox.ordering() != Ordering.GROUP) {
        int released = messages.releaseHeld(outbox.name());
        if (released > 0) {
          LOG.warning(
              "OUTBOXER-1102 outbox '"
                  + outbox.name()
                  + "' starts with "
                  + outbox.key("ordering")
                  + "="
                  + outbox.ordering().name().toLowerCase(Locale.ROOT)
                  + ": its "
                  + released
                  + " rows held behind failing messages of their group (kept by group ordering)"
                  + " are released");
        }
      }
      Relay relay = Relays.create(outbox, terms.callBudget(), executor);
      relays.add(relay);
      leases.createLeases(outbox.name(), outbox.partitions());
      NodeShare share = new NodeShare(outbox.partitions());
      shares.put(outbox.name(), share);
      PartitionWorker[] partitionWorkers = new PartitionWorker[outbox.partitions()];
      for (int p = 0; p < outbox.partitions(); p++) {
        int partition = p;
        partitionWorkers[p] =
            new PartitionWorker(
                outbox,
                p,
                settings.nodeId(),
                terms,
                messages,
                leases,
                relay,
                share,
                events,
                System::nanoTime,
                why -> {
                  if (why == null) {
                    runtime.relayAvailable(outbox.name(), partition);
                  } else {
                    runtime.relayUnavailable(outbox.name(), partition, why);
                  }
                });
      }
      workers.put(outbox.name(), partitionWorkers);
    }
    LOG.info(
        "OUTBOXER-0002 node "
            + settings.nodeId()
            + " started outboxes "
            + settings.outboxes().keySet()
            + " on "
            + database.description());
    if (!settings.deliveryEnabled()) {
      LOG.info("OUTBOXER-0003 outboxer.delivery.enabled=false: this server publishes only");
      return;
    }
    runtime.watchStalls(this::stalledPartitions);
    heartbeat();
    long heartbeat = terms.heartbeatInterval().toMillis();
    polls.add(
        executor.scheduleWithFixedDelay(
            this::heartbeat, heartbeat, heartbeat, TimeUnit.MILLISECONDS));
    long poll = settings.pollInterval().toMillis();
    for (PartitionWorker[] partitionWorkers : workers.values()) {
      for (PartitionWorker worker : partitionWorkers) {
        polls.add(executor.scheduleWithFixedDelay(worker, 0, poll, TimeUnit.MILLISECONDS));
      }
    }
  }

  /**
   * Tells the database that this node delivers its outboxes, and sets each outbox's fair share from
   * the number of nodes that do; first takes the outbox table's statistics again where they are far
   * behind it (ADR 0017).
   */
  private void heartbeat() {
    try {
      // Only where statistics steer the plans: elsewhere the call would take the engine's turn for
      // nothing (SQLite), beside the heartbeats that need it.
      if (messages.keepsStatistics()) {
        messages.refreshStatistics();
      }
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "OUTBOXER-3017 taking outboxer_message's statistics again failed", e);
    }
    LeaseTerms terms = settings.leaseTerms();
    shares.forEach(
        (outbox, share) -> {
          try {
            share.nodes(
                leases.heartbeat(outbox, settings.nodeId(), terms.ttl(), terms.forgetNodesAfter()));
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "OUTBOXER-3008 heartbeat of outbox " + outbox + " failed", e);
          }
        });
  }

  /**
   * The partitions whose worker made no progress for longer than {@link #STALL_AFTER}, as {@code
   * <outbox>.partition.<n>}, with for how long.
   */
  private Map<String, String> stalledPartitions() {
    Map<String, String> stalled = new LinkedHashMap<>();
    workers.forEach(
        (outbox, partitionWorkers) -> {
          for (int p = 0; p < partitionWorkers.length; p++) {
            Duration silent = partitionWorkers[p].silentFor();
            if (silent.compareTo(STALL_AFTER) > 0) {
              stalled.put(
                  outbox + ".partition." + p,
                  "OUTBOXER-3013 its worker made no progress for "
                      + silent.toSeconds()
                      + " s: no batch read, completion or run ended (see the server's threads)");
            }
          }
        });
    return stalled;
  }

  /**
   * Stops the workers: their polls first, then each run under way after its current batch, all
   * within {@link #STOP_WAIT} together; a worker still busy then (stuck in a wait) keeps its lease,
   * which expires by itself, and the application stops all the same.
   */
  @PreDestroy
  void stop() {
    polls.forEach(f -> f.cancel(false));
    // Every worker first, without waiting: the idle ones give their lease back at once, and none
    // starts a batch while another's run is waited for.
    workers.values().forEach(ws -> Arrays.stream(ws).forEach(w -> w.stop(Duration.ZERO)));
    long stopBy = System.nanoTime() + STOP_WAIT.toNanos();
    workers.forEach(
        (outbox, partitionWorkers) -> {
          for (int p = 0; p < partitionWorkers.length; p++) {
            Duration left = Duration.ofNanos(Math.max(0, stopBy - System.nanoTime()));
            if (!partitionWorkers[p].stop(left)) {
              LOG.warning(
                  "OUTBOXER-3014 the worker of outbox "
                      + outbox
                      + " partition "
                      + p
                      + " was still in a run when the application stopped, "
                      + STOP_WAIT.toSeconds()
                      + " s after it was asked to: its lease expires by itself");
            }
          }
        });
    if (settings.deliveryEnabled()) {
      for (String outbox : shares.keySet()) {
        try {
          leases.leave(outbox, settings.nodeId());
        } catch (RuntimeException e) {
          // The next would wait as long: the heartbeats left are forgotten after ten lease ttls.
          LOG.log(
              Level.WARNING,
              "OUTBOXER-3009 node could not remove its heartbeat of outbox "
                  + outbox
                  + " nor tried its other outboxes'",
              e);
          break;
        }
      }
    }
    for (Relay relay : relays) {
      try {
        relay.close();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "OUTBOXER-0004 closing a relay failed", e);
      }
    }
  }

  /**
   * Runs the worker of the woken partition now, unless a run under way will go round once more for
   * the wake-up.
   */
  public void onWakeUp(@Observes WakeUp wakeUp) {
    PartitionWorker[] partitionWorkers = workers.get(wakeUp.outbox());
    if (settings.deliveryEnabled() && partitionWorkers != null) {
      PartitionWorker worker = partitionWorkers[wakeUp.partition()];
      if (worker.wake()) {
        executor.execute(worker);
      }
    }
  }
}
