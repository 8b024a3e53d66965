package io.outboxer.internal.inbox;

import io.outboxer.Inbox;
import io.outboxer.OutboxException;
import io.outboxer.internal.store.InboxStore;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

/** The {@link Inbox} bean: validates, then claims through the store in the caller's transaction. */
@ApplicationScoped
public class InboxBean implements Inbox {

  /** The longest outbox name and group key the table holds. */
  static final int MAX_OUTBOX = 100;

  static final int MAX_GROUP_KEY = 500;

  @Inject private InboxStore store;
  @Resource private TransactionSynchronizationRegistry transactions;

  @Override
  public boolean claim(String outbox, String groupKey, long id) {
    String message = "message " + id + " of group " + groupKey + " in outbox " + outbox;
    if (transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
      throw new OutboxException(
          "OUTBOXER-5001 Inbox.claim("
              + message
              + ") needs an active JTA transaction, the one that processes the message");
    }
    if (groupKey == null) {
      throw new OutboxException(
          "OUTBOXER-5002 Inbox.claim("
              + message
              + ") needs a group key: ungrouped messages arrive in any order, so a last id cannot"
              + " tell a duplicate; deduplicate them by their id in the consumer's own data");
    }
    if (outbox == null || outbox.isEmpty() || outbox.length() > MAX_OUTBOX) {
      throw new OutboxException(
          "OUTBOXER-5003 Inbox.claim("
              + message
              + "): the outbox name must have 1 to "
              + MAX_OUTBOX
              + " characters");
    }
    if (groupKey.isEmpty() || groupKey.length() > MAX_GROUP_KEY) {
      throw new OutboxException(
          "OUTBOXER-5003 Inbox.claim(message "
              + id
              + " in outbox "
              + outbox
              + "): the group key has "
              + groupKey.length()
              + " characters; it must have 1 to "
              + MAX_GROUP_KEY);
    }
    if (id < 1) {
      throw new OutboxException(
          "OUTBOXER-5003 Inbox.claim(" + message + "): message ids start at 1");
    }
    return store.claim(outbox, groupKey, id);
  }
}
