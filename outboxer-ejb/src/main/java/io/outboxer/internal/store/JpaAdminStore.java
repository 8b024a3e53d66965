package io.outboxer.internal.store;

import io.outboxer.MessageDetails;
import io.outboxer.PartitionLease;
import io.outboxer.internal.rules.Partitioner;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Operators' reads and repairs through the dialect's statements. */
@ApplicationScoped
public class JpaAdminStore implements AdminStore {

  @Inject private NativeQueries sql;

  @Override
  public Map<Integer, Map<RowState, Long>> countByPartition(String outbox) {
    Map<Integer, Map<RowState, Long>> counts = new HashMap<>();
    for (ResultRow row : sql.rows(Sql.COUNT_BY_STATE, "outbox", outbox)) {
      counts
          .computeIfAbsent(row.integer("partition_no"), p -> new EnumMap<>(RowState.class))
          .merge(RowState.of(row.integer("state")), row.number("messages"), Long::sum);
    }
    return counts;
  }

  @Override
  public List<PartitionLease> leases(String outbox) {
    return sql.rows(Sql.LIST_LEASES, "outbox", outbox).stream()
        .map(
            r ->
                new PartitionLease(
                    r.integer("partition_no"),
                    r.text("owner"),
                    r.number("epoch"),
                    r.instant("expires_at")))
        .toList();
  }

  @Override
  public List<MessageDetails> page(String outbox, RowState state, long afterId, int limit) {
    return sql
        .rows(
            Sql.PAGE_MESSAGES,
            "outbox",
            outbox,
            "state",
            state.code(),
            "after",
            afterId,
            "limit",
            limit)
        .stream()
        .map(
            r ->
                new MessageDetails(
                    r.number("id"),
                    r.integer("partition_no"),
                    r.text("group_key"),
                    r.text("message_type"),
                    RowState.of(r.integer("state")).asMessageState(),
                    r.integer("attempts"),
                    r.instant("created_at"),
                    r.instant("last_attempt_at"),
                    r.instant("next_attempt_at"),
                    r.text("last_error")))
        .toList();
  }

  @Override
  public Optional<StoredMessage> findForRepair(String outbox, long id) {
    sql.update(Sql.MARK_REPAIR_OF_MESSAGE, "outbox", outbox, "id", id);
    return sql.rows(Sql.FIND_MESSAGE, "outbox", outbox, "id", id).stream()
        .findFirst()
        .map(
            r ->
                new StoredMessage(
                    id,
                    outbox,
                    r.integer("partition_no"),
                    r.text("group_key"),
                    RowState.of(r.integer("state")),
                    r.integer("attempts")));
  }

  @Override
  public int partitionForRepair(String outbox, String groupKey) {
    int partitions = sql.number(Sql.RECORDED_PARTITIONS, "name", outbox).intValue();
    int partition = Partitioner.partitionOf(groupKey, partitions);
    sql.update(Sql.MARK_REPAIR_OF_PARTITION, "outbox", outbox, "partition", partition);
    return partition;
  }

  @Override
  public int reviveDead(String outbox) {
    sql.update(Sql.MARK_REPAIR_ALL, "outbox", outbox);
    return sql.update(Sql.REVIVE_ALL_DEAD, "outbox", outbox);
  }

  @Override
  public void reviveDead(StoredMessage message) {
    sql.update(Sql.REVIVE_DEAD, "outbox", message.outbox(), "id", message.id());
  }

  @Override
  public int reviveDeadGroup(String outbox, String groupKey) {
    return sql.update(Sql.REVIVE_DEAD_GROUP, "outbox", outbox, "group", groupKey);
  }

  @Override
  public void discard(StoredMessage message, boolean releaseGroup) {
    sql.update(Sql.DELETE_MESSAGE, "id", message.id());
    if (releaseGroup) {
      sql.update(
          Sql.RELEASE_GROUP,
          "outbox",
          message.outbox(),
          "partition",
          message.partition(),
          "group",
          message.groupKey());
    }
  }

  @Override
  public int releaseGroup(String outbox, int partition, String groupKey) {
    int due =
        sql.update(
            Sql.RETRY_GROUP_NOW, "outbox", outbox, "partition", partition, "group", groupKey);
    boolean failing =
        due > 0
            || !sql.column(
                    Sql.GROUP_FAILING, "outbox", outbox, "partition", partition, "group", groupKey)
                .isEmpty();
    return failing
        ? due
        : sql.update(
            Sql.RELEASE_GROUP, "outbox", outbox, "partition", partition, "group", groupKey);
  }
}
