package io.outboxer.internal.admin;

import io.outboxer.OutboxAdmin;
import io.outboxer.OutboxCounts;
import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.OutboxerRuntime;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.store.AdminStore;
import io.outboxer.internal.store.RowState;
import io.outboxer.internal.store.StoredMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The {@link OutboxAdmin} bean. */
@ApplicationScoped
@Transactional
public class OutboxAdminBean implements OutboxAdmin {

  @Inject private OutboxerRuntime runtime;
  @Inject private AdminStore store;

  @Override
  public OutboxCounts counts(String outbox) {
    OutboxConfig settings = runtime.outbox(outbox);
    Map<Integer, Map<RowState, Long>> byPartition = store.countByPartition(outbox);
    List<OutboxCounts.PartitionCounts> partitions = new ArrayList<>();
    long pending = 0;
    long retrying = 0;
    long dead = 0;
    int count =
        Math.max(
            settings.partitions(),
            byPartition.keySet().stream().mapToInt(p -> p + 1).max().orElse(0));
    for (int p = 0; p < count; p++) {
      Map<RowState, Long> c = byPartition.getOrDefault(p, Map.of());
      long partitionDead = c.getOrDefault(RowState.DEAD, 0L);
      long partitionRetrying = c.getOrDefault(RowState.WAITING, 0L);
      long partitionPending = c.values().stream().mapToLong(Long::longValue).sum() - partitionDead;
      partitions.add(
          new OutboxCounts.PartitionCounts(p, partitionPending, partitionRetrying, partitionDead));
      pending += partitionPending;
      retrying += partitionRetrying;
      dead += partitionDead;
    }
    return new OutboxCounts(outbox, pending, retrying, dead, List.copyOf(partitions));
  }

  @Override
  public int retryDead(String outbox) {
    runtime.outbox(outbox);
    return store.reviveDead(outbox, null);
  }

  @Override
  public void retryDead(String outbox, long id) {
    runtime.outbox(outbox);
    StoredMessage message = find(outbox, id);
    if (message.state() != RowState.DEAD) {
      throw new OutboxException(
          "OUTBOXER-4002 message " + id + " of outbox '" + outbox + "' is not dead: it is pending");
    }
    store.reviveDead(outbox, id);
  }

  @Override
  public void discard(String outbox, long id) {
    OutboxConfig settings = runtime.outbox(outbox);
    StoredMessage message = find(outbox, id);
    store.discard(
        message,
        settings.ordering() == Ordering.GROUP
            && message.groupKey() != null
            && message.isFailingHead());
  }

  private StoredMessage find(String outbox, long id) {
    return store
        .find(outbox, id)
        .orElseThrow(
            () ->
                new OutboxException(
                    "OUTBOXER-4001 no message " + id + " in outbox '" + outbox + "'"));
  }
}
