package io.outboxer.internal.publish;

import io.outboxer.Outbox;
import io.outboxer.OutboxException;
import io.outboxer.OutboxMessage;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.OutboxerRuntime;
import io.outboxer.internal.entity.OutboxRecord;
import io.outboxer.internal.rules.OrderingScope;
import io.outboxer.internal.rules.Partitioner;
import io.outboxer.internal.store.MessageStore;
import io.outboxer.internal.telemetry.CurrentTrace;
import io.outboxer.internal.telemetry.OutboxMetrics;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * The {@link Outbox} bean: validates, serializes, partitions and inserts in the caller's JTA tx.
 */
@ApplicationScoped
public class OutboxPublisher implements Outbox {

  @Inject private OutboxerRuntime runtime;
  @Inject private MessageStore store;
  @Inject private OutboxMetrics metrics;
  @Resource private TransactionSynchronizationRegistry transactions;

  private final Jsonb jsonb = JsonbBuilder.create();

  @PreDestroy
  void close() {
    try {
      jsonb.close();
    } catch (Exception e) {
      throw new IllegalStateException("cannot close JSON-B", e);
    }
  }

  @Override
  public long publish(OutboxMessage message) {
    String type = Publication.typeOf(message);
    int status = transactions.getTransactionStatus();
    if (status != Status.STATUS_ACTIVE) {
      throw new OutboxException(
          "OUTBOXER-2001 Outbox.publish("
              + type
              + ") needs an active JTA transaction, and "
              + (status == Status.STATUS_NO_TRANSACTION
                  ? "none is active on this thread"
                  : "this thread's transaction is not active (jakarta.transaction.Status "
                      + status
                      + ")")
              + ": call it from a transactional method (@Transactional, or an EJB method)");
    }
    OutboxConfig outbox = runtime.outbox(Publication.outboxOf(message.getClass()));
    String refusal = runtime.refusal(outbox.name());
    if (refusal != null) {
      throw new OutboxException("OUTBOXER-2006 cannot publish " + type + ": " + refusal);
    }
    Publication publication = Publication.of(message, jsonb);
    String group = publication.groupKey();
    int partition = Partitioner.partitionOf(group, outbox.partitions());
    // Commit-safe order (ADR 0010): the insert tells workers that this transaction may commit ids
    // from the sequence's next value on in this partition. Messages without a group have no order
    // to keep, but are announced all the same: workers read past ids already read (ADR 0014),
    // which only holds if no row can commit below them.
    long id =
        store.insert(
            new OutboxRecord(
                outbox.name(),
                partition,
                group,
                type,
                publication.payload(),
                CurrentTrace.traceParent()),
            outbox.serializeWrites()
                ? OrderingScope.lockKey(outbox.name(), outbox.ordering(), group)
                : null,
            outbox.waitsForWriters());
    runtime.wakeAfterCommit(outbox.name(), partition);
    metrics.publishedOnCommit(outbox.name());
    return id;
  }
}
