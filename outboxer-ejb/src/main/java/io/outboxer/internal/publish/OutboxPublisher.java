package io.outboxer.internal.publish;

import io.outboxer.Outbox;
import io.outboxer.OutboxException;
import io.outboxer.OutboxMessage;
import io.outboxer.Outboxed;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.OutboxerRuntime;
import io.outboxer.internal.entity.OutboxRecord;
import io.outboxer.internal.rules.OrderingScope;
import io.outboxer.internal.rules.Partitioner;
import io.outboxer.internal.store.MessageStore;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The {@link Outbox} bean: validates, serializes, partitions and inserts in the caller's JTA tx.
 */
@ApplicationScoped
public class OutboxPublisher implements Outbox {

  static final int MAX_GROUP_KEY = 500;
  private static final String DEFAULT_OUTBOX = "default";
  private static final Object PUBLISHED_KEY = new Object();

  @Inject private OutboxerRuntime runtime;
  @Inject private MessageStore store;
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
    if (message == null) {
      throw new OutboxException("OUTBOXER-2002 cannot publish null: pass an OutboxMessage");
    }
    String type = message.getClass().getName();
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
    OutboxConfig outbox = runtime.outbox(outboxOf(message.getClass()));
    String refusal = runtime.refusal(outbox.name());
    if (refusal != null) {
      throw new OutboxException("OUTBOXER-2006 cannot publish " + type + ": " + refusal);
    }
    String group = message.groupKey();
    if (group != null && group.length() > MAX_GROUP_KEY) {
      throw new OutboxException(
          "OUTBOXER-2004 group key of "
              + type
              + " is "
              + group.length()
              + " characters long; the limit is "
              + MAX_GROUP_KEY);
    }
    String payload;
    try {
      payload = jsonb.toJson(message);
    } catch (RuntimeException e) {
      throw new OutboxException(
          "OUTBOXER-2003 JSON-B cannot serialize " + type + ": " + e.getMessage(), e);
    }
    int partition = Partitioner.partitionOf(group, outbox.partitions());
    PartitionRef where = new PartitionRef(outbox.name(), partition);
    Published published = published();
    // Commit-safe order (ADR 0008): before the insert, tell workers that this transaction may
    // commit ids from the sequence's next value on in this partition. Messages without an
    // ordering scope have no order to keep.
    if (outbox.waitsForWriters()
        && OrderingScope.of(outbox.ordering(), group) != null
        && published.announced.add(where)) {
      store.announce(outbox.name(), partition, published.announced.size() == 1);
    }
    long id =
        store.insert(
            new OutboxRecord(outbox.name(), partition, group, type, payload),
            outbox.serializeWrites()
                ? OrderingScope.lockKey(outbox.name(), outbox.ordering(), group)
                : null);
    published.toWake.add(where);
    return id;
  }

  private static String outboxOf(Class<?> type) {
    Outboxed outboxed = type.getAnnotation(Outboxed.class);
    return outboxed == null ? DEFAULT_OUTBOX : outboxed.value();
  }

  /**
   * What the caller's transaction published so far; its partitions' workers are woken when it
   * commits.
   */
  private Published published() {
    Published published = (Published) transactions.getResource(PUBLISHED_KEY);
    if (published == null) {
      Published created = new Published();
      published = created;
      transactions.putResource(PUBLISHED_KEY, created);
      transactions.registerInterposedSynchronization(
          new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int completion) {
              if (completion == Status.STATUS_COMMITTED) {
                created.toWake.forEach(p -> runtime.wake(p.outbox(), p.partition()));
              }
            }
          });
    }
    return published;
  }

  private record PartitionRef(String outbox, int partition) {}

  /** One transaction's publishing: where it published, where it announced itself (ADR 0008). */
  private static final class Published {
    final Set<PartitionRef> toWake = new LinkedHashSet<>();
    final Set<PartitionRef> announced = new LinkedHashSet<>();
  }
}
