package io.outboxer.internal.admin;

import io.outboxer.OutboxAdmin;
import io.outboxer.OutboxCounts;
import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxSettings;
import io.outboxer.internal.store.JpaOutboxStore;
import io.outboxer.internal.store.StoredMessage;
import io.outboxer.internal.worker.OutboxEngine;
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

  @Inject private OutboxEngine engine;
  @Inject private JpaOutboxStore store;

  @Override
  public OutboxCounts counts(String outbox) {
    OutboxSettings settings = engine.settings().outbox(outbox);
    Map<Integer, long[]> byPartition = store.countByPartition(outbox);
    List<OutboxCounts.PartitionCounts> partitions = new ArrayList<>();
    long pending = 0;
    long retrying = 0;
    long dead = 0;
    int count =
        Math.max(
            settings.partitions(),
            byPartition.keySet().stream().mapToInt(p -> p + 1).max().orElse(0));
    for (int p = 0; p < count; p++) {
      long[] c = byPartition.getOrDefault(p, new long[3]);
      partitions.add(new OutboxCounts.PartitionCounts(p, c[0], c[1], c[2]));
      pending += c[0];
      retrying += c[1];
      dead += c[2];
    }
    return new OutboxCounts(outbox, pending, retrying, dead, List.copyOf(partitions));
  }

  @Override
  public int retryDead(String outbox) {
    engine.settings().outbox(outbox);
    return store.reviveDead(outbox, null);
  }

  @Override
  public void retryDead(String outbox, long id) {
    engine.settings().outbox(outbox);
    StoredMessage message = find(outbox, id);
    if (message.state() != JpaOutboxStore.DEAD) {
      throw new OutboxException(
          "OUTBOXER-4002 message " + id + " of outbox '" + outbox + "' is not dead: it is pending");
    }
    store.reviveDead(outbox, id);
  }

  @Override
  public void discard(String outbox, long id) {
    OutboxSettings settings = engine.settings().outbox(outbox);
    store.discard(settings, find(outbox, id));
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
