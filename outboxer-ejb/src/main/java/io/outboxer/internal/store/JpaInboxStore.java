package io.outboxer.internal.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The inbox through the dialect's {@code INBOX_CLAIM} statement. */
@ApplicationScoped
public class JpaInboxStore implements InboxStore {

  @Inject private NativeQueries sql;

  @Override
  public boolean claim(String outbox, String groupKey, long id) {
    return sql.update(Sql.INBOX_CLAIM, "outbox", outbox, "group", groupKey, "id", id) == 1;
  }
}
