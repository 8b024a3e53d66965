package io.outboxer.internal.config;

import io.outboxer.OutboxException;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.Config;

/**
 * Outboxer's state in this application: the configuration, read and validated once (a bad value
 * fails deployment), the outboxes refused at startup with the reason, the partitions whose relay is
 * unavailable, and the signal that wakes a partition's worker. Publishing, administration and
 * health read it; the engine fills in the refusals and listens for {@link WakeUp}s.
 */
@ApplicationScoped
public class OutboxerRuntime {

  private static final Logger LOG = Logger.getLogger(OutboxerRuntime.class.getName());
  private static final Object WAKE_KEY = new Object();

  @Inject private Config config;
  @Inject private Event<WakeUp> wakeUps;
  @Resource private TransactionSynchronizationRegistry transactions;

  private EngineConfig settings;
  private final Map<String, String> refused = new ConcurrentHashMap<>();
  private final Map<String, String> unavailableRelays = new ConcurrentHashMap<>();
  private volatile Supplier<Map<String, String>> stalls = Map::of;

  @PostConstruct
  void read() {
    settings = EngineConfig.read(config);
    settings.warnings().forEach(LOG::warning);
  }

  /** The configuration in force. */
  public EngineConfig settings() {
    return settings;
  }

  /**
   * The configuration of outbox {@code name}, which may deliver and accept messages.
   *
   * @throws OutboxException OUTBOXER-2005 when no such outbox is configured
   */
  public OutboxConfig outbox(String name) {
    return settings.outbox(name);
  }

  /** Records that outbox {@code name} was refused at startup: its workers do not run. */
  public void refuse(String name, String reason) {
    refused.put(name, reason);
  }

  /** Why outbox {@code name} was refused at startup, or null when it was not. */
  public String refusal(String name) {
    return refused.get(name);
  }

  /** Outboxes refused at startup, with the reason. */
  public Map<String, String> refusedOutboxes() {
    return Collections.unmodifiableMap(refused);
  }

  /**
   * Records that the relay of a partition is unavailable (or still is), with why: its messages wait
   * uncharged. An outage of a destination is shown, but does not make the server unready.
   */
  public void relayUnavailable(String outbox, int partition, String why) {
    unavailableRelays.put(where(outbox, partition), why);
  }

  /** Records that the relay of a partition answers again. */
  public void relayAvailable(String outbox, int partition) {
    unavailableRelays.remove(where(outbox, partition));
  }

  private static String where(String outbox, int partition) {
    return outbox + ".partition." + partition;
  }

  /** The partitions whose relay is unavailable now, as {@code <outbox>.partition.<n>}, with why. */
  public Map<String, String> unavailableRelays() {
    return Collections.unmodifiableMap(new TreeMap<>(unavailableRelays));
  }

  /**
   * Where the partitions that stalled are asked for: the engine's workers, which know when each
   * last made progress. Asked by whoever reads them (readiness, a metrics scrape), never by a
   * thread of the engine's, which a stall could hold too.
   */
  public void watchStalls(Supplier<Map<String, String>> stalledPartitions) {
    stalls = stalledPartitions;
  }

  /**
   * The partitions whose worker made no progress (no read, completion or run ended) for longer than
   * the engine allows, as {@code <outbox>.partition.<n>}, with for how long.
   */
  public Map<String, String> stalledPartitions() {
    return new TreeMap<>(stalls.get());
  }

  /** Asks the worker of a partition to look for rows now: a transaction just committed some. */
  public void wake(String outbox, int partition) {
    wakeUps.fire(new WakeUp(outbox, partition));
  }

  /**
   * Asks the worker of a partition to look for rows once the caller's transaction has committed
   * (publishing, or an operator's repair); nothing when it rolls back. Each partition is woken once
   * per transaction.
   */
  public void wakeAfterCommit(String outbox, int partition) {
    @SuppressWarnings("unchecked")
    Set<WakeUp> toWake = (Set<WakeUp>) transactions.getResource(WAKE_KEY);
    if (toWake == null) {
      Set<WakeUp> wakeUpsOfTransaction = new LinkedHashSet<>();
      toWake = wakeUpsOfTransaction;
      transactions.putResource(WAKE_KEY, wakeUpsOfTransaction);
      transactions.registerInterposedSynchronization(
          new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int completion) {
              if (completion == Status.STATUS_COMMITTED) {
                wakeUpsOfTransaction.forEach(wakeUps::fire);
              }
            }
          });
    }
    toWake.add(new WakeUp(outbox, partition));
  }
}
