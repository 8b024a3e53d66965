package io.outboxer.internal.store;

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
    for (Object[] row : sql.rows(Sql.COUNT_BY_STATE, "outbox", outbox)) {
      counts
          .computeIfAbsent(((Number) row[0]).intValue(), p -> new EnumMap<>(RowState.class))
          .merge(
              RowState.of(((Number) row[1]).intValue()), ((Number) row[2]).longValue(), Long::sum);
    }
    return counts;
  }

  @Override
  public Optional<StoredMessage> find(String outbox, long id) {
    List<Object[]> rows = sql.rows(Sql.FIND_MESSAGE, "outbox", outbox, "id", id);
    return rows.stream()
        .findFirst()
        .map(
            r ->
                new StoredMessage(
                    id,
                    outbox,
                    ((Number) r[0]).intValue(),
                    (String) r[1],
                    RowState.of(((Number) r[2]).intValue()),
                    ((Number) r[3]).intValue()));
  }

  @Override
  public int reviveDead(String outbox, Long id) {
    return id == null
        ? sql.update(Sql.REVIVE_ALL_DEAD, "outbox", outbox)
        : sql.update(Sql.REVIVE_DEAD, "outbox", outbox, "id", id);
  }

  @Override
  public void discard(StoredMessage message, boolean releaseGroup) {
    // Waits for a batch read of the partition that may be holding rows behind this message, so
    // that the release below sees them: the worker's transactions hold the lease row too.
    sql.update(Sql.TOUCH_LEASE, "outbox", message.outbox(), "partition", message.partition());
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
}
