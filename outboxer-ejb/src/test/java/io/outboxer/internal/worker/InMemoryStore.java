package io.outboxer.internal.worker;

import io.outboxer.internal.entity.OutboxRecord;
import io.outboxer.internal.rules.Completion;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.OrderingScope;
import io.outboxer.internal.store.InFlightPublish;
import io.outboxer.internal.store.Lease;
import io.outboxer.internal.store.LeaseStore;
import io.outboxer.internal.store.MessageStore;
import io.outboxer.internal.store.ReadBatch;
import io.outboxer.internal.store.ReadStart;
import io.outboxer.spi.Envelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The stores a worker uses, in memory, for one outbox: rows by id, leases judged by a database
 * clock the test moves, and counts of the calls a test asserts on.
 */
final class InMemoryStore implements MessageStore, LeaseStore {

  /** A message row. */
  static final class Row {
    final long id;
    final String group;
    int attempts;
    boolean waiting;
    boolean dead;
    String lastError;

    Row(long id, String group) {
      this.id = id;
      this.group = group;
    }
  }

  private record LeaseRow(String owner, long epoch, long expiresAtMillis) {}

  final TreeMap<Long, Row> rows = new TreeMap<>();
  final AtomicInteger emptyReads = new AtomicInteger();
  final AtomicInteger renewals = new AtomicInteger();
  final AtomicInteger completions = new AtomicInteger();
  private final Map<Integer, LeaseRow> leases = new HashMap<>();

  /** Where each batch read started, in order (the start the store used, not the one asked for). */
  final List<Long> readsFrom = new ArrayList<>();

  private long repairs;

  /**
   * Reads still to answer as a store whose read only held rows (behind blocked heads) and ended its
   * transaction: an empty batch that asks to be read on.
   */
  int onlyHeldReads;

  /** Runs at every batch read: a test moves its clock here to make reads slow. */
  Runnable onRead = () -> {};

  /** At each batch read, after {@link #onRead}: whether a wake-up had arrived during the run. */
  final List<Boolean> wokenAtRead = new ArrayList<>();

  private long databaseMillis;

  synchronized void add(long id, String group) {
    rows.put(id, new Row(id, group));
  }

  /** An operator's repair: raises the repair count, as the admin store does in its transaction. */
  synchronized void repair() {
    repairs++;
  }

  /** Moves the database clock, by which leases expire. */
  synchronized void advanceDatabaseClock(Duration d) {
    databaseMillis += d.toMillis();
  }

  /** The owner of a partition's valid lease, or null. */
  synchronized String owner(int partition) {
    LeaseRow lease = leases.get(partition);
    return lease == null || lease.expiresAtMillis <= databaseMillis ? null : lease.owner;
  }

  @Override
  public long insert(OutboxRecord record, Long lockKey) {
    throw new UnsupportedOperationException("workers do not publish");
  }

  @Override
  public void announce(String outbox, int partition, boolean first) {
    throw new UnsupportedOperationException("workers do not publish");
  }

  @Override
  public List<InFlightPublish> oldestInFlight(String outbox) {
    return List.of();
  }

  @Override
  public synchronized Optional<ReadBatch> nextBatch(
      Lease lease,
      Ordering ordering,
      int batchSize,
      boolean afterWriters,
      ReadStart start,
      BooleanSupplier woken) {
    if (!valid(lease)) {
      return Optional.empty();
    }
    onRead.run();
    wokenAtRead.add(woken.getAsBoolean());
    long from = afterWriters && start.repairs() == repairs ? start.id() : 0;
    readsFrom.add(from);
    if (onlyHeldReads > 0) {
      onlyHeldReads--;
      return Optional.of(new ReadBatch(List.of(), new ReadStart(from, repairs), true));
    }
    String outbox = lease.outbox();
    int partition = lease.partition();
    List<Envelope> batch = new ArrayList<>();
    Set<String> blocked = new HashSet<>();
    for (Row r : rows.tailMap(from, true).values()) {
      if (batch.size() == batchSize) {
        break;
      }
      if (r.waiting && r.group != null) {
        blocked.add(r.group); // the rest of its group is held
      }
      if (!r.waiting && !r.dead && !blocked.contains(r.group)) {
        batch.add(
            new Envelope(
                r.id,
                outbox,
                partition,
                r.group,
                "T",
                "{}",
                r.attempts + 1,
                OrderingScope.of(ordering, r.group)));
      }
    }
    if (batch.isEmpty()) {
      emptyReads.incrementAndGet();
    }
    return Optional.of(
        new ReadBatch(batch, new ReadStart(from, repairs), batch.size() == batchSize));
  }

  @Override
  public int releaseHeld(String outbox) {
    return 0;
  }

  @Override
  public synchronized boolean complete(Lease lease, Completion completion) {
    completions.incrementAndGet();
    if (!valid(lease)) {
      return false;
    }
    completion.delete().forEach(rows::remove);
    for (Completion.Failure f : completion.failures()) {
      Row r = rows.get(f.id());
      r.attempts++;
      r.lastError = f.reason();
      r.dead = f.dead();
      r.waiting = !f.dead();
    }
    return true;
  }

  private boolean valid(Lease lease) {
    LeaseRow row = leases.get(lease.partition());
    return row != null
        && lease.owner().equals(row.owner)
        && row.epoch == lease.epoch()
        && row.expiresAtMillis > databaseMillis;
  }

  @Override
  public Optional<String> recordPartitions(String outbox, int partitions) {
    return Optional.empty();
  }

  @Override
  public void createLeases(String outbox, int partitions) {}

  @Override
  public synchronized Optional<Lease> acquire(
      String outbox, int partition, String owner, Duration ttl) {
    LeaseRow row = leases.get(partition);
    if (row != null && row.owner != null && row.expiresAtMillis > databaseMillis) {
      return Optional.empty();
    }
    long epoch = row == null ? 1 : row.epoch + 1;
    leases.put(partition, new LeaseRow(owner, epoch, databaseMillis + ttl.toMillis()));
    return Optional.of(new Lease(outbox, partition, owner, epoch));
  }

  @Override
  public synchronized boolean renew(Lease lease, Duration ttl) {
    renewals.incrementAndGet();
    if (!valid(lease)) {
      return false;
    }
    leases.put(
        lease.partition(),
        new LeaseRow(lease.owner(), lease.epoch(), databaseMillis + ttl.toMillis()));
    return true;
  }

  @Override
  public synchronized void release(Lease lease) {
    if (valid(lease)) {
      leases.put(lease.partition(), new LeaseRow(null, lease.epoch(), 0));
    }
  }

  @Override
  public int heartbeat(String outbox, String node, Duration alive, Duration forgetAfter) {
    return 1;
  }

  @Override
  public void leave(String outbox, String node) {}
}
