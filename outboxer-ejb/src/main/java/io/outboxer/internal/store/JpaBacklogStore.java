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
    for (Object[] row : sql.rows(Sql.BACKLOG)) {
      long pending = number(row[1]);
      long oldest = row[3] == null ? 0 : Math.max(0, number(row[5]) - number(row[3]));
      backlog.put(
          (String) row[0],
          new Backlog(pending, number(row[2]), pending == 0 ? 0 : oldest, number(row[4])));
    }
    return backlog;
  }

  private static long number(Object value) {
    return value == null ? 0 : ((Number) value).longValue();
  }
}
