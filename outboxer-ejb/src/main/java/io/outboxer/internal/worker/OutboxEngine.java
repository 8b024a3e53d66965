package io.outboxer.internal.worker;

import io.outboxer.internal.config.OutboxSettings;
import io.outboxer.internal.config.OutboxerSettings;
import io.outboxer.internal.relay.Relays;
import io.outboxer.internal.store.Database;
import io.outboxer.internal.store.JpaOutboxStore;
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
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * Starts Outboxer with the application: reads and validates the configuration (a bad value fails
 * deployment), creates the schema, connects each outbox's relay and runs one {@link
 * PartitionWorker} per partition on the managed scheduled executor, polled at the poll interval and
 * woken right after a publishing transaction commits.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionManagement(TransactionManagementType.BEAN)
public class OutboxEngine {

  private static final Logger LOG = Logger.getLogger(OutboxEngine.class.getName());
  private static final Duration STOP_WAIT = Duration.ofSeconds(10);

  @Resource private ManagedScheduledExecutorService executor;
  @Inject private Config config;
  @Inject private Database database;
  @Inject private JpaOutboxStore store;

  private OutboxerSettings settings;
  private final Map<String, String> refused = new ConcurrentHashMap<>();
  private final Map<String, PartitionWorker[]> workers = new LinkedHashMap<>();
  private final Map<String, FairShare> shares = new LinkedHashMap<>();
  private final List<Relay> relays = new ArrayList<>();
  private final List<Future<?>> polls = new ArrayList<>();

  @PostConstruct
  void start() {
    settings = OutboxerSettings.read(config);
    if (settings.createSchema()) {
      database.installSchema();
    }
    for (OutboxSettings outbox : settings.outboxes().values()) {
      // A batch starts with at least two thirds of the lease left; the relay call gets one third,
      // which leaves the completing transaction the last third (ADR 0003).
      Relay relay = Relays.create(outbox, settings.leaseTtl().dividedBy(3));
      relays.add(relay);
      Optional<String> refusal = store.recordPartitions(outbox.name(), outbox.partitions());
      if (refusal.isPresent()) {
        refused.put(outbox.name(), refusal.get());
        LOG.severe(refusal.get());
        continue;
      }
      store.createLeases(outbox.name(), outbox.partitions());
      FairShare share = new FairShare(outbox.partitions());
      shares.put(outbox.name(), share);
      PartitionWorker[] partitionWorkers = new PartitionWorker[outbox.partitions()];
      for (int p = 0; p < outbox.partitions(); p++) {
        partitionWorkers[p] =
            new PartitionWorker(
                outbox, p, settings.nodeId(), settings.leaseTtl(), store, relay, share);
      }
      workers.put(outbox.name(), partitionWorkers);
    }
    LOG.info(
        "OUTBOXER-0002 node "
            + settings.nodeId()
            + " started outboxes "
            + settings.outboxes().keySet()
            + " on "
            + database.dialect());
    if (!settings.deliveryEnabled()) {
      LOG.info("OUTBOXER-0003 outboxer.delivery.enabled=false: this server publishes only");
      return;
    }
    heartbeat();
    long heartbeat = settings.leaseTtl().toMillis() / 3;
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
   * the number of nodes that do.
   */
  private void heartbeat() {
    shares.forEach(
        (outbox, share) -> {
          try {
            share.nodes(store.heartbeat(outbox, settings.nodeId(), settings.leaseTtl()));
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "OUTBOXER-3008 heartbeat of outbox " + outbox + " failed", e);
          }
        });
  }

  @PreDestroy
  void stop() {
    polls.forEach(f -> f.cancel(false));
    for (PartitionWorker[] partitionWorkers : workers.values()) {
      for (PartitionWorker worker : partitionWorkers) {
        worker.stop(STOP_WAIT);
      }
    }
    if (settings.deliveryEnabled()) {
      for (String outbox : shares.keySet()) {
        try {
          store.leave(outbox, settings.nodeId());
        } catch (RuntimeException e) {
          LOG.log(Level.WARNING, "OUTBOXER-3008 heartbeat of outbox " + outbox + " failed", e);
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

  /** The configuration in force. */
  public OutboxerSettings settings() {
    return settings;
  }

  /** Outboxes whose workers were refused at startup, with the reason. */
  public Map<String, String> refusedOutboxes() {
    return Collections.unmodifiableMap(refused);
  }

  /** Asks the worker of a partition to look for rows now: a transaction just committed some. */
  public void wake(String outbox, int partition) {
    PartitionWorker[] partitionWorkers = workers.get(outbox);
    if (settings.deliveryEnabled() && partitionWorkers != null) {
      executor.execute(partitionWorkers[partition]);
    }
  }
}
