package io.outboxer.internal.admin;

import io.outboxer.MessageDetails;
import io.outboxer.MessageState;
import io.outboxer.OutboxAdmin;
import io.outboxer.OutboxCounts;
import io.outboxer.OutboxException;
import io.outboxer.PartitionLease;
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
  public List<String> outboxes() {
    return List.copyOf(runtime.settings().outboxes().keySet());
  }

  @Override
  public OutboxCounts counts(String outbox) {
    OutboxConfig settings = runtime.outbox(outbox);
    Map<Integer, Map<RowState, Long>> byPartition = store.countByPartition(outbox);
    List<OutboxCounts.PartitionCounts> partitions = new ArrayList<>();
    int count =
        Math.max(
            settings.partitions(),
            byPartition.keySet().stream().mapToInt(p -> p + 1).max().orElse(0));
    for (int p = 0; p < count; p++) {
      Map<RowState, Long> c = byPartition.getOrDefault(p, Map.of());
      long dead = c.getOrDefault(RowState.DEAD, 0L);
      partitions.add(
          new OutboxCounts.PartitionCounts(
              p,
              c.values().stream().mapToLong(Long::longValue).sum() - dead,
              c.getOrDefault(RowState.RETRYING, 0L),
              c.getOrDefault(RowState.HELD, 0L),
              dead));
    }
    return new OutboxCounts(
        outbox,
        partitions.stream().mapToLong(OutboxCounts.PartitionCounts::pending).sum(),
        partitions.stream().mapToLong(OutboxCounts.PartitionCounts::retrying).sum(),
        partitions.stream().mapToLong(OutboxCounts.PartitionCounts::held).sum(),
        partitions.stream().mapToLong(OutboxCounts.PartitionCounts::dead).sum(),
        List.copyOf(partitions));
  }

  @Override
  public List<PartitionLease> leases(String outbox) {
    runtime.outbox(outbox);
    return store.leases(outbox);
  }

  @Override
  public List<MessageDetails> messages(String outbox, MessageState state, long afterId, int limit) {
    runtime.outbox(outbox);
    if (limit < 1 || limit > MAX_PAGE) {
      throw new OutboxException(
          "OUTBOXER-4003 a page holds 1 to " + MAX_PAGE + " messages, not " + limit);
    }
    return store.page(outbox, RowState.of(state), afterId, limit);
  }

  @Override
  public int retryDead(String outbox) {
    OutboxConfig settings = runtime.outbox(outbox);
    int revived = store.reviveDead(outbox);
    if (revived > 0) {
      for (int p = 0; p < settings.partitions(); p++) {
        runtime.wakeAfterCommit(outbox, p);
      }
    }
    return revived;
  }

  @Override
  public void retryDead(String outbox, long id) {
    runtime.outbox(outbox);
    StoredMessage message = findForRepair(outbox, id);
    if (message.state() != RowState.DEAD) {
      throw new OutboxException(
          "OUTBOXER-4002 message " + id + " of outbox '" + outbox + "' is not dead: it is pending");
    }
    store.reviveDead(message);
    runtime.wakeAfterCommit(outbox, message.partition());
  }

  @Override
  public int retryDeadGroup(String outbox, String groupKey) {
    runtime.outbox(outbox);
    requireGroup(groupKey);
    int partition = store.partitionForRepair(outbox, groupKey);
    int revived = store.reviveDeadGroup(outbox, groupKey);
    if (revived > 0) {
      runtime.wakeAfterCommit(outbox, partition);
    }
    return revived;
  }

  @Override
  public void discard(String outbox, long id) {
    OutboxConfig settings = runtime.outbox(outbox);
    StoredMessage message = findForRepair(outbox, id);
    boolean releaseGroup =
        settings.ordering() == Ordering.GROUP
            && message.groupKey() != null
            && message.isFailingHead();
    store.discard(message, releaseGroup);
    if (releaseGroup) {
      runtime.wakeAfterCommit(outbox, message.partition());
    }
  }

  @Override
  public int releaseGroup(String outbox, String groupKey) {
    runtime.outbox(outbox);
    requireGroup(groupKey);
    int partition = store.partitionForRepair(outbox, groupKey);
    int due = store.releaseGroup(outbox, partition, groupKey);
    if (due > 0) {
      runtime.wakeAfterCommit(outbox, partition);
    }
    return due;
  }

  private static void requireGroup(String groupKey) {
    if (groupKey == null || groupKey.isBlank()) {
      throw new OutboxException("OUTBOXER-4004 name the group: the group key is missing");
    }
  }

  private StoredMessage findForRepair(String outbox, long id) {
    return store
        .findForRepair(outbox, id)
        .orElseThrow(
            () ->
                new OutboxException(
                    "OUTBOXER-4001 no message " + id + " in outbox '" + outbox + "'"));
  }
}
