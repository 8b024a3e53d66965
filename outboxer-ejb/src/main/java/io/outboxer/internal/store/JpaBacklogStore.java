package io.outboxer.internal.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.HashMap;
import java.util.Map;

/** The backlog through the dialect's {@code BACKLOG} statement: one query for all outboxes. */
@ApplicationScoped
public class JpaBacklogStore implements BacklogStore {

  @Inject private NativeQueries sql;

  @Override
  @Transactional
  public Map<String, Backlog> backlog() {
    Map<String, Backlog> backlog = new HashMap<>();
    for (ResultRow row : sql.rows(Sql.BACKLOG)) {
      long pending = row.number("pending");
      Long oldestCreatedAt = row.numberOrNull("oldest_created_at");
      long oldest =
          oldestCreatedAt == null ? 0 : Math.max(0, row.number("now_millis") - oldestCreatedAt);
      backlog.put(
          row.text("outbox"),
          new Backlog(
              pending,
              row.number("dead"),
              pending == 0 ? 0 : oldest,
              row.number("failing_groups")));
    }
    return backlog;
  }
}
