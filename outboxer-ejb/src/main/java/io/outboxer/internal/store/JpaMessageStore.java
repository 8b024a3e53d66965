package io.outboxer.internal.store;

import io.outboxer.internal.entity.OutboxRecord;
import io.outboxer.internal.rules.BatchSelection;
import io.outboxer.internal.rules.CommitOrder;
import io.outboxer.internal.rules.Completion;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.ReadBatch;
import io.outboxer.internal.rules.ReadStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * The message rows through Hibernate and the dialect's statements: a publish's in the caller's
 * transaction, the engine's reads and completions each an {@link EngineTransaction}.
 */
@ApplicationScoped
public class JpaMessageStore implements MessageStore {

  private static final Logger LOG = Logger.getLogger(JpaMessageStore.class.getName());

  /** The longest last error kept ({@code outboxer_message.last_error}). */
  static final int MAX_ERROR = 4000;

  @Inject private NativeQueries sql;

  @Override
  public long insert(OutboxRecord record, Long lockKey, boolean announce) {
    if (lockKey != null && sql.has(Sql.GROUP_LOCK)) {
      sql.column(Sql.GROUP_LOCK, "key", lockKey);
    }
    if (announce && sql.has(Sql.INSERT_ANNOUNCED)) {
      return sql.number(
              Sql.INSERT_ANNOUNCED,
              "space",
              CommitOrder.space(record.getOutbox()),
              "outbox",
              record.getOutbox(),
              "partition",
              record.getPartition(),
              "group",
              record.getGroupKey(),
              "type",
              record.getType(),
              "payload",
              record.getPayload(),
              "trace",
              record.getTraceParent())
          .longValue();
    }
    sql.entityManager().persist(record);
    return record.getId();
  }

  @Override
  @EngineTransaction
  @Transactional
  public Optional<ReadBatch> nextBatch(
      Lease lease,
      Ordering ordering,
      int batchSize,
      boolean waitsForWriters,
      ReadStart start,
      BooleanSupplier woken) {
    // Waiting needs a database where writers are not serialized: PostgreSQL's in-flight bound.
    boolean waits = waitsForWriters && sql.has(Sql.IN_FLIGHT);
    if (sql.has(Sql.READ_COMMITS_UNFLUSHED)) {
      sql.column(Sql.READ_COMMITS_UNFLUSHED);
    }
    // Read before the rows, which the statements below then see as of after this look.
    long bound = waits ? inFlightBound(lease.outbox(), lease.partition()) : Long.MAX_VALUE;
    // The lease's row lock, before any row is read. Under it, an operator's repair that raised the
    // repair count has committed, and the rows it made ready are seen by the statements below; a
    // later one waits for this read.
    long repairs = -1;
    if (waits) {
      List<Object> fenced = sql.columnFenced(Sql.READ_FENCE, lease);
      if (fenced.isEmpty()) {
        return Optional.empty();
      }
      repairs = ((Number) fenced.get(0)).longValue();
    } else if (sql.updateFenced(Sql.FENCE, lease) != 1) {
      return Optional.empty();
    }
    planByIndex();
    boolean promoted = sql.updatePartition(Sql.PROMOTE_DUE, lease) > 0;
    BatchSelection selection =
        new BatchSelection(ordering, batchSize, waits, start, repairs, woken);
    return Optional.of(
        selection.select(
            promoted,
            () -> !sql.columnOfPartition(Sql.HEAD_WAITS, lease).isEmpty(),
            new PartitionRows(sql, lease, ordering, batchSize, bound)));
  }

  @Override
  public boolean keepsStatistics() {
    return sql.has(Sql.STATISTICS_STALE);
  }

  @Override
  @EngineTransaction
  @Transactional
  public boolean refreshStatistics() {
    if (!keepsStatistics() || !statisticsStale()) {
      return false;
    }
    sql.column(Sql.STATISTICS_TURN);
    if (!statisticsStale()) {
      return false; // another transaction took them while this one waited for its turn
    }
    sql.update(Sql.ANALYZE_OUTBOX);
    LOG.info(
        "OUTBOXER-0006 outboxer_message changed by far more rows than its statistics counted:"
            + " they were taken again, so that the statements are planned for the table as it is");
    return true;
  }

  private boolean statisticsStale() {
    return sql.number(Sql.STATISTICS_STALE).intValue() == 1;
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
    Object first = smallest.get(0);
    return CommitOrder.bound(lastId, first == null ? null : ((Number) first).longValue());
  }

  @Override
  @Transactional
  public List<InFlightPublish> oldestInFlight(String outbox) {
    if (!sql.has(Sql.OLDEST_IN_FLIGHT)) {
      return List.of();
    }
    return sql.rows(Sql.OLDEST_IN_FLIGHT, "space", CommitOrder.space(outbox)).stream()
        .map(
            row ->
                new InFlightPublish(
                    row.integer("partition_no"),
                    row.number("bound"),
                    row.integerOrNull("pid"),
                    row.numberOrNull("open_millis")))
        .toList();
  }

  @Override
  @Transactional
  public List<String> commitOrderProblems() {
    if (!sql.has(Sql.ID_CACHE)) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    long cache = ((Number) sql.column(Sql.ID_CACHE).get(0)).longValue();
    if (cache > 1) {
      problems.add(
          "the identity of outboxer_message.id caches "
              + cache
              + " ids per session, so a transaction can commit ids below those already read (run"
              + " alter table outboxer_message alter column id set cache 1)");
    }
    String isolation = (String) sql.column(Sql.ISOLATION_LEVEL).get(0);
    if (!"read committed".equals(isolation)) {
      problems.add(
          "the data source's transactions run at "
              + isolation
              + ", not read committed (set isolationLevel=\"TRANSACTION_READ_COMMITTED\" on its"
              + " dataSource in server.xml)");
    }
    return problems;
  }

  @Override
  @EngineTransaction
  @Transactional
  public boolean complete(Lease lease, Completion completion) {
    if (sql.updateFenced(Sql.FENCE, lease) != 1) {
      return false;
    }
    planByIndex();
    for (String group : completion.release()) {
      PartitionRows.release(sql, lease, group);
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
        PartitionRows.release(sql, lease, f.groupKey());
      }
    }
    return true;
  }

  /**
   * Plans each later statement of the transaction for its parameters and by index (ADR 0017): a
   * plan cached, or statistics taken, while the outbox was empty would scan the whole backlog at
   * every batch. Called after the statements on the lease and the lock table, whose plans the
   * outbox's size never changes, so that they keep the plan they were prepared with.
   */
  private void planByIndex() {
    if (sql.has(Sql.PLAN_BY_INDEX)) {
      sql.column(Sql.PLAN_BY_INDEX);
    }
  }

  private static String truncate(String reason) {
    return reason.length() <= MAX_ERROR ? reason : reason.substring(0, MAX_ERROR);
  }
}
