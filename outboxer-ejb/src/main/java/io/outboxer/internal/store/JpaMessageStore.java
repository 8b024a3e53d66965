package io.outboxer.internal.store;

import io.outboxer.internal.entity.OutboxRecord;
import io.outboxer.internal.rules.BlockedGroups;
import io.outboxer.internal.rules.CommitOrder;
import io.outboxer.internal.rules.Completion;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.OrderingScope;
import io.outboxer.spi.Envelope;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The message rows through Hibernate and the dialect's statements: a publish's in the caller's
 * transaction, the engine's reads and completions each an {@link EngineTransaction}.
 */
@ApplicationScoped
public class JpaMessageStore implements MessageStore {

  /** The longest last error kept ({@code outboxer_message.last_error}). */
  static final int MAX_ERROR = 4000;

  /** The most reads of rows that all had to be held, per batch read's transaction. */
  static final int HELD_READS_PER_TRANSACTION = 10;

  /**
   * The most groups a transaction's reads leave out after reading past their rows (ADR 0016): the
   * statement compares each row it passes with each of them (with 1,000 groups, 0.7 s per 100,000
   * rows on the benchmark's machine, against 17 ms with one). Rows of further groups are held as
   * they are met.
   */
  static final int MAX_GROUPS_READ_PAST = 16;

  @Inject private NativeQueries sql;

  @Override
  public long insert(OutboxRecord record, Long lockKey) {
    if (lockKey != null && sql.has(Sql.GROUP_LOCK)) {
      sql.column(Sql.GROUP_LOCK, "key", lockKey);
    }
    sql.entityManager().persist(record);
    return record.getId();
  }

  @Override
  public void announce(String outbox, int partition, boolean first) {
    if (sql.has(Sql.ANNOUNCE)) {
      sql.column(
          first ? Sql.ANNOUNCE : Sql.PARTITION_LOCK,
          "space",
          CommitOrder.space(outbox),
          "partition",
          partition);
    }
  }

  @Override
  @EngineTransaction
  @Transactional
  public Optional<ReadBatch> nextBatch(
      Lease lease,
      Ordering ordering,
      int batchSize,
      boolean afterWriters,
      ReadStart start,
      BooleanSupplier woken) {
    String outbox = lease.outbox();
    int partition = lease.partition();
    boolean bounded = afterWriters && sql.has(Sql.IN_FLIGHT);
    if (sql.has(Sql.READ_COMMITS_UNFLUSHED)) {
      sql.column(Sql.READ_COMMITS_UNFLUSHED);
    }
    // Read before the rows, which the statements below then see as of after this look.
    long bound = bounded ? inFlightBound(outbox, partition) : Long.MAX_VALUE;
    // The lease's row lock, before any row is read. Under it, an operator's repair that raised the
    // repair count has committed, and the rows it made ready are seen by the statements below; a
    // later one waits for this read.
    long repairs = -1;
    if (bounded) {
      List<Object> fenced = sql.columnFenced(Sql.READ_FENCE, lease);
      if (fenced.isEmpty()) {
        return Optional.empty();
      }
      repairs = ((Number) fenced.get(0)).longValue();
    } else if (sql.updateFenced(Sql.FENCE, lease) != 1) {
      return Optional.empty();
    }
    planPerExecution();
    long from = bounded && repairs == start.repairs() ? start.id() : 0;
    long unheld = from > 0 ? start.unheld() : 0;
    if (sql.update(Sql.PROMOTE_DUE, "outbox", outbox, "partition", partition) > 0) {
      from = 0;
      unheld = 0;
    }
    if (ordering == Ordering.TOTAL
        && !sql.column(Sql.HEAD_WAITS, "outbox", outbox, "partition", partition).isEmpty()) {
      return Optional.of(new ReadBatch(List.of(), new ReadStart(from, repairs), false));
    }
    // The groups whose rows this transaction read past without holding them: the reads after
    // leave their rows out, which their statement passes in one walk of the index (ADR 0016).
    Set<String> readPast = new LinkedHashSet<>();
    PartitionBlocked partitionBlocked = new PartitionBlocked(lease);
    int heldReads = 0;
    while (true) {
      List<Envelope> read =
          readReady(outbox, partition, ordering, batchSize, from, bound, readPast);
      boolean full = read.size() == batchSize;
      if (ordering != Ordering.GROUP) {
        return Optional.of(new ReadBatch(read, new ReadStart(from, repairs), full));
      }
      Map<String, BlockedGroups.Heads> heads = heads(lease, read, partitionBlocked);
      List<String> orphaned = BlockedGroups.orphaned(heads);
      if (!orphaned.isEmpty()) {
        // Held rows whose group has no failing head any more: released, and the batch read again
        // from the first row so that they go before the rows of their group that came after them.
        orphaned.forEach(group -> releaseGroup(lease, group));
        from = 0;
        unheld = 0;
        readPast.clear();
        continue;
      }
      BlockedGroups.Split split = BlockedGroups.split(read, BlockedGroups.blockedFrom(heads));
      List<String> blocked = split.onlyHeld() ? BlockedGroups.groupsOf(read) : List.of();
      if (bounded && split.onlyHeld() && readPast.size() + blocked.size() <= MAX_GROUPS_READ_PAST) {
        // Rows that are all behind blocked heads, where no row can commit below an id already read
        // (ADR 0014): read past and left ready, so that the rows behind them go out first; they
        // are held once nothing else is ready (ADR 0016).
        unheld = unheld == 0 ? read.get(0).id() : Math.min(unheld, read.get(0).id());
        readPast.addAll(blocked);
      } else if (!split.hold().isEmpty()) {
        sql.update(Sql.HOLD_ROWS, "ids", NativeQueries.idArray(split.hold()));
      }
      if (!split.free().isEmpty()) {
        return Optional.of(new ReadBatch(split.free(), new ReadStart(from, repairs, unheld), full));
      }
      if (read.isEmpty()) {
        return Optional.of(
            unheld > 0
                ? holdReadPast(
                    lease, batchSize, from, unheld, bound, repairs, partitionBlocked, woken)
                : new ReadBatch(List.of(), new ReadStart(from, repairs), false));
      }
      // A batch made only of rows behind blocked heads is read past or held, and read on at once,
      // rather than ending the worker's run with ready rows still behind them: past them by
      // position where no row can commit below an id already read (ADR 0014; elsewhere a writer
      // that committed meanwhile could have a lower id than a later writer of its group read next).
      // After a bounded number of such reads the transaction ends with an empty batch that asks to
      // be read on, so that a long blocked group never makes one long transaction.
      if (bounded) {
        from = read.get(read.size() - 1).id() + 1;
      }
      if (++heldReads == HELD_READS_PER_TRANSACTION) {
        return Optional.of(new ReadBatch(List.of(), new ReadStart(from, repairs, unheld), true));
      }
    }
  }

  /**
   * Holds the blocked rows read past, from {@code unheld} on, once a read from {@code from} found
   * nothing else ready (ADR 0016): as many reads as a transaction may hold, each starting past the
   * one before. The batch does not ask to be read on: the holding goes on at the worker's next run
   * (a wake-up or the poll), so that it takes a bounded share of the machine from the other
   * partitions' deliveries, and the next run first reads from {@code from} again, past the rows
   * still to hold (which its statement leaves out once its first read met them), to the rows
   * published meanwhile. Not from {@code bound}: a row below it that was not committed yet is below
   * no id read, and may still come. The transaction ends early, after the read under way, once
   * {@code woken} says that rows may have been published meanwhile: the worker's next run, which
   * the wake-up asked for, reads them first.
   */
  private ReadBatch holdReadPast(
      Lease lease,
      int batchSize,
      long from,
      long unheld,
      long bound,
      long repairs,
      PartitionBlocked partitionBlocked,
      BooleanSupplier woken) {
    long next = unheld;
    for (int reads = 0; reads < HELD_READS_PER_TRANSACTION; reads++) {
      if (reads > 0 && woken.getAsBoolean()) {
        break; // never before the first read: that is what keeps the holding going
      }
      List<Envelope> read =
          readReady(
              lease.outbox(), lease.partition(), Ordering.GROUP, batchSize, next, bound, Set.of());
      Map<String, BlockedGroups.Heads> heads = heads(lease, read, partitionBlocked);
      List<String> orphaned = BlockedGroups.orphaned(heads);
      if (!orphaned.isEmpty()) {
        orphaned.forEach(group -> releaseGroup(lease, group));
        return new ReadBatch(List.of(), new ReadStart(0, repairs), true);
      }
      BlockedGroups.Split split = BlockedGroups.split(read, BlockedGroups.blockedFrom(heads));
      if (!split.hold().isEmpty()) {
        sql.update(Sql.HOLD_ROWS, "ids", NativeQueries.idArray(split.hold()));
      }
      if (!split.free().isEmpty()) {
        return new ReadBatch(split.free(), new ReadStart(next, repairs), true);
      }
      if (read.size() < batchSize) {
        return new ReadBatch(List.of(), new ReadStart(from, repairs), false);
      }
      next = read.get(read.size() - 1).id() + 1;
    }
    return new ReadBatch(List.of(), new ReadStart(from, repairs, next), false);
  }

  @Override
  @EngineTransaction
  @Transactional
  public int releaseHeld(String outbox) {
    sql.update(Sql.MARK_REPAIR_ALL, "outbox", outbox);
    return sql.update(Sql.RELEASE_OUTBOX_HELD, "outbox", outbox);
  }

  /**
   * The id from which a transaction still in flight may yet commit rows in the partition (ADR
   * 0010): the identity's last value first, then the locks.
   */
  private long inFlightBound(String outbox, int partition) {
    long lastId = sql.number(Sql.LAST_ID).longValue();
    List<Object> smallest =
        sql.column(Sql.IN_FLIGHT, "space", CommitOrder.space(outbox), "partition", partition);
    return CommitOrder.bound(lastId, id(smallest.get(0)));
  }

  @Override
  @Transactional
  public List<InFlightPublish> oldestInFlight(String outbox) {
    if (!sql.has(Sql.OLDEST_IN_FLIGHT)) {
      return List.of();
    }
    List<InFlightPublish> oldest = new ArrayList<>();
    for (Object[] row : sql.rows(Sql.OLDEST_IN_FLIGHT, "space", CommitOrder.space(outbox))) {
      oldest.add(
          new InFlightPublish(
              ((Number) row[0]).intValue(),
              ((Number) row[1]).longValue(),
              row[2] == null ? null : ((Number) row[2]).intValue(),
              id(row[3])));
    }
    return oldest;
  }

  private List<Envelope> readReady(
      String outbox,
      int partition,
      Ordering ordering,
      int limit,
      long from,
      long bound,
      Set<String> readPast) {
    List<Object> parameters =
        new ArrayList<>(
            List.of("outbox", outbox, "partition", partition, "bound", bound, "limit", limit));
    Sql statement = Sql.READ_READY;
    if (from > 0) {
      statement = Sql.READ_READY_FROM;
      parameters.addAll(List.of("from", from));
    }
    if (!readPast.isEmpty()) {
      statement = Sql.READ_READY_PAST_BLOCKED; // read past after a read from an id: from > 0
      parameters.addAll(List.of("groups", NativeQueries.keyArray(readPast)));
    }
    List<Object[]> rows = sql.rows(statement, parameters.toArray());
    List<Envelope> batch = new ArrayList<>(rows.size());
    for (Object[] row : rows) {
      String group = (String) row[1];
      batch.add(
          new Envelope(
              ((Number) row[0]).longValue(),
              outbox,
              partition,
              group,
              (String) row[2],
              (String) row[3],
              ((Number) row[4]).intValue() + 1,
              OrderingScope.of(ordering, group),
              (String) row[5]));
    }
    return batch;
  }

  /**
   * Per group of {@code batch} with a failing head or held rows, what the database holds of its
   * failure. Nothing to look up where the partition has no blocked group, else three index probes
   * per group, each one entry deep: the cost depends on the batch, never on how many rows a blocked
   * group holds.
   */
  private Map<String, BlockedGroups.Heads> heads(
      Lease lease, List<Envelope> batch, PartitionBlocked partitionBlocked) {
    Map<String, BlockedGroups.Heads> heads = new HashMap<>();
    if (batch.isEmpty() || !partitionBlocked.any()) {
      return heads;
    }
    List<String> groups = BlockedGroups.groupsOf(batch);
    if (groups.isEmpty()) {
      return heads;
    }
    for (Object[] row :
        sql.rows(
            Sql.BLOCKED_FROM,
            "outbox",
            lease.outbox(),
            "partition",
            lease.partition(),
            "groups",
            NativeQueries.keyArray(groups))) {
      BlockedGroups.Heads h = new BlockedGroups.Heads(id(row[1]), id(row[2]), id(row[3]));
      if (h.waiting() != null || h.firstHeld() != null) {
        heads.put((String) row[0], h);
      }
    }
    return heads;
  }

  /**
   * Whether the partition has a blocked group (a waiting head or held rows), asked at most once per
   * batch read's transaction, when its first batch is read (PARTITION_BLOCKED). The answer holds
   * until the transaction ends: only the partition's lease holder makes a head wait or holds rows,
   * in transactions fenced by the lease row that this one has locked, for which an operator's
   * repair waits too; and this transaction holds rows only of a group already blocked. Where no
   * group is blocked, a batch read never sends its thousand group keys to look up their heads.
   */
  private final class PartitionBlocked {
    private final Lease lease;
    private Boolean any;

    PartitionBlocked(Lease lease) {
      this.lease = lease;
    }

    boolean any() {
      if (any == null) {
        any =
            sql.number(
                        Sql.PARTITION_BLOCKED,
                        "outbox",
                        lease.outbox(),
                        "partition",
                        lease.partition())
                    .intValue()
                == 1;
      }
      return any;
    }
  }

  private static Long id(Object value) {
    return value == null ? null : ((Number) value).longValue();
  }

  @Override
  @EngineTransaction
  @Transactional
  public boolean complete(Lease lease, Completion completion) {
    if (sql.updateFenced(Sql.FENCE, lease) != 1) {
      return false;
    }
    planPerExecution();
    for (String group : completion.release()) {
      releaseGroup(lease, group);
    }
    if (!completion.delete().isEmpty()) {
      sql.update(Sql.DELETE_ROWS, "ids", NativeQueries.idArray(completion.delete()));
    }
    for (Completion.Failure f : completion.failures()) {
      String error = truncate(f.reason());
      int updated =
          f.dead()
              ? sql.update(Sql.FAIL_DEAD, "error", error, "id", f.id())
              : sql.update(
                  Sql.FAIL_RETRY, "error", error, "delay", f.retryAfter().toMillis(), "id", f.id());
      if (updated == 1 && f.groupEffect() == Completion.GroupEffect.RELEASE) {
        releaseGroup(lease, f.groupKey());
      }
    }
    return true;
  }

  /**
   * Plans each later statement of the transaction for its parameters and the table as it is (ADR
   * 0017): a plan cached while the outbox was empty would scan the whole backlog at every batch.
   * Called after the statements on the lease and the lock table, whose plans the outbox's size
   * never changes, so that they keep the plan they were prepared with.
   */
  private void planPerExecution() {
    if (sql.has(Sql.PLAN_PER_EXECUTION)) {
      sql.column(Sql.PLAN_PER_EXECUTION);
    }
  }

  private void releaseGroup(Lease lease, String group) {
    sql.update(
        Sql.RELEASE_GROUP,
        "outbox",
        lease.outbox(),
        "partition",
        lease.partition(),
        "group",
        group);
  }

  private static String truncate(String reason) {
    return reason.length() <= MAX_ERROR ? reason : reason.substring(0, MAX_ERROR);
  }
}
