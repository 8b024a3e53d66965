package io.outboxer.internal.store;

import io.outboxer.internal.rules.BatchSelection;
import io.outboxer.internal.rules.BlockedGroups;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.OrderingScope;
import io.outboxer.spi.Envelope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The statements that a {@link BatchSelection} runs on a leased partition, in the batch read's
 * transaction: reads of ready rows below the bound of the transactions in flight, the heads of
 * their groups, holds and releases.
 */
final class PartitionRows implements BatchSelection.Rows {

  private final NativeQueries sql;
  private final Lease lease;
  private final Ordering ordering;
  private final int batchSize;
  private final long bound;

  /**
   * Whether the partition has a blocked group (a retrying head or held rows), asked at most once
   * per transaction, when the heads of grouped rows are first looked up (PARTITION_BLOCKED). The
   * answer holds until the transaction ends: only the partition's lease holder makes a head wait or
   * holds rows, in transactions fenced by the lease row that this one has locked, for which an
   * operator's repair waits too; and this transaction holds rows only of a group already blocked.
   * Where no group is blocked, a read never sends its thousand group keys to look up their heads.
   */
  private Boolean anyBlocked;

  /**
   * @param bound the id from which a transaction still in flight may commit rows in the partition
   *     (ADR 0010): reads stay below it
   */
  PartitionRows(NativeQueries sql, Lease lease, Ordering ordering, int batchSize, long bound) {
    this.sql = sql;
    this.lease = lease;
    this.ordering = ordering;
    this.batchSize = batchSize;
    this.bound = bound;
  }

  @Override
  public List<Envelope> ready(BatchSelection.Read read) {
    List<Object> parameters = new ArrayList<>(List.of("bound", bound, "limit", batchSize));
    Sql statement = Sql.READ_READY;
    if (read.from() > 0) {
      statement = Sql.READ_READY_FROM;
      parameters.addAll(List.of("from", read.from()));
    }
    if (!read.leaveOut().isEmpty()) {
      statement = Sql.READ_READY_PAST_BLOCKED; // groups are read past from an id on: from > 0
      parameters.addAll(List.of("groups", NativeQueries.keyArray(read.leaveOut())));
    }
    return sql.rowsOfPartition(statement, lease, parameters.toArray()).stream()
        .map(
            row ->
                new Envelope(
                    row.number("id"),
                    lease.outbox(),
                    lease.partition(),
                    row.text("group_key"),
                    row.text("message_type"),
                    row.text("payload"),
                    row.integer("attempts") + 1,
                    OrderingScope.of(ordering, row.text("group_key")),
                    row.text("trace_parent")))
        .toList();
  }

  /**
   * Nothing to look up where the partition has no blocked group, else three index probes per group,
   * each one entry deep: the cost depends on the rows read, never on how many rows a blocked group
   * holds.
   */
  @Override
  public Map<String, BlockedGroups.Heads> heads(List<Envelope> rows) {
    List<String> groups = BlockedGroups.groupsOf(rows);
    if (groups.isEmpty() || !anyBlocked()) {
      return Map.of();
    }
    Map<String, BlockedGroups.Heads> heads = new HashMap<>();
    for (ResultRow row :
        sql.rowsOfPartition(Sql.BLOCKED_FROM, lease, "groups", NativeQueries.keyArray(groups))) {
      BlockedGroups.Heads h =
          new BlockedGroups.Heads(
              row.numberOrNull("retrying"),
              row.numberOrNull("first_held"),
              row.numberOrNull("due_again"));
      if (h.retrying() != null || h.firstHeld() != null) {
        heads.put(row.text("group_key"), h);
      }
    }
    return heads;
  }

  private boolean anyBlocked() {
    if (anyBlocked == null) {
      anyBlocked =
          ((Number) sql.columnOfPartition(Sql.PARTITION_BLOCKED, lease).get(0)).intValue() == 1;
    }
    return anyBlocked;
  }

  @Override
  public void release(List<String> groups) {
    groups.forEach(group -> release(sql, lease, group));
  }

  @Override
  public void hold(List<Long> ids) {
    sql.update(Sql.HOLD_ROWS, "ids", NativeQueries.idArray(ids));
  }

  /** Makes the held rows of {@code group} in {@code lease}'s partition ready again. */
  static void release(NativeQueries sql, Lease lease, String group) {
    sql.updatePartition(Sql.RELEASE_GROUP, lease, "group", group);
  }
}
