package io.outboxer.internal.worker;

import io.outboxer.internal.entity.OutboxRecord;
import io.outboxer.internal.rules.Completion;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.ReadBatch;
import io.outboxer.internal.rules.ReadStart;
import io.outboxer.internal.rules.RowTable;
import io.outboxer.internal.rules.SharedTerms;
import io.outboxer.internal.store.InFlightPublish;
import io.outboxer.internal.store.Lease;
import io.outboxer.internal.store.LeaseStore;
import io.outboxer.internal.store.MessageStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The stores a worker uses, in memory, for one outbox: its rows in a {@link RowTable}, read by the
 * real batch selection; leases judged by a database clock the test moves; and counts of the calls a
 * test asserts on.
 */
final class InMemoryStore implements MessageStore, LeaseStore {

  private record LeaseRow(String owner, long epoch, long expiresAtMillis) {}

  private final RowTable table = new RowTable();
  final TreeMap<Long, RowTable.Row> rows = table.rows;
  final AtomicInteger emptyReads = new AtomicInteger();
  final AtomicInteger renewals = new AtomicInteger();
  final AtomicInteger completions = new AtomicInteger();

  /** Calls of {@link #refreshStatistics}, and what each throws (null: nothing). */
  final AtomicInteger refreshes = new AtomicInteger();

  RuntimeException refreshFailure;
  private final Map<Integer, LeaseRow> leases = new HashMap<>();

  /** Where each batch read's first read of rows started (the start the selection used). */
  final List<Long> readsFrom = new ArrayList<>();

  /** Runs at every batch read: a test moves its clock here to make reads slow. */
  Runnable onRead = () -> {};

  /**
   * Runs at every renewal, before the lease is judged: a test moves both clocks here to make the
   * renewal wait, as behind a lock on the lease row.
   */
  Runnable onRenew = () -> {};

  /** At each batch read, after {@link #onRead}: whether a wake-up had arrived during the run. */
  final List<Boolean> wokenAtRead = new ArrayList<>();

  private long databaseMillis;

  synchronized void add(long id, String group) {
    table.add(id, group);
  }

  /** An operator's repair: raises the repair count, as the admin store does in its transaction. */
  synchronized void repair() {
    table.repairs++;
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
  public long insert(OutboxRecord record, Long lockKey, boolean announce) {
    throw new UnsupportedOperationException("workers do not publish");
  }

  @Override
  public boolean refreshStatistics() {
    refreshes.incrementAndGet();
    if (refreshFailure != null) {
      throw refreshFailure;
    }
    return false;
  }

  @Override
  public boolean keepsStatistics() {
    return true;
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
      boolean waitsForWriters,
      ReadStart start,
      BooleanSupplier woken) {
    if (!valid(lease)) {
      return Optional.empty();
    }
    onRead.run();
    wokenAtRead.add(woken.getAsBoolean());
    int reads = table.reads.size();
    ReadBatch batch = table.read(ordering, batchSize, waitsForWriters, start, woken);
    if (table.reads.size() > reads) {
      readsFrom.add(table.reads.get(reads).from());
    }
    if (batch.envelopes().isEmpty()) {
      emptyReads.incrementAndGet();
    }
    return Optional.of(batch);
  }

  @Override
  public List<String> commitOrderProblems() {
    return List.of();
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
    table.complete(completion);
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
  public Optional<String> recordOutbox(
      String outbox, SharedTerms terms, String node, Duration alive, boolean delivers) {
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
    onRenew.run();
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
