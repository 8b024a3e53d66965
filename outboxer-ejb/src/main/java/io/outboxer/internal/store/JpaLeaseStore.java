package io.outboxer.internal.store;

import io.outboxer.internal.rules.SharedTerms;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.util.Optional;

/**
 * Partition records, leases and heartbeats through the dialect's statements, each call an {@link
 * EngineTransaction}.
 */
@ApplicationScoped
@EngineTransaction
@Transactional
public class JpaLeaseStore implements LeaseStore {

  @Inject private NativeQueries sql;

  @Override
  public Optional<String> recordOutbox(
      String outbox, SharedTerms terms, String node, Duration alive, boolean delivers) {
    String settings = terms.settingsText();
    sql.update(
        Sql.INSERT_OUTBOX, "name", outbox, "partitions", terms.partitions(), "terms", settings);
    ResultRow recorded = sql.rows(Sql.RECORDED_OUTBOX, "name", outbox).get(0);
    int others =
        sql.number(Sql.COUNT_OTHER_NODES, "outbox", outbox, "node", node, "ttl", alive.toMillis())
            .intValue();
    SharedTerms.Verdict verdict =
        terms.judge(
            outbox,
            recorded.integer("partitions"),
            recorded.text("terms"),
            others,
            () -> sql.number(Sql.COUNT_OUTBOX_ROWS, "name", outbox).longValue(),
            delivers);
    if (verdict instanceof SharedTerms.Refuse refuse) {
      return Optional.of(refuse.reason());
    }
    if (verdict instanceof SharedTerms.Record) {
      sql.update(
          Sql.UPDATE_OUTBOX, "name", outbox, "partitions", terms.partitions(), "terms", settings);
    }
    return Optional.empty();
  }

  @Override
  public void createLeases(String outbox, int partitions) {
    for (int p = 0; p < partitions; p++) {
      sql.update(Sql.INSERT_LEASE, "outbox", outbox, "partition", p);
    }
  }

  @Override
  public Optional<Lease> acquire(String outbox, int partition, String owner, Duration ttl) {
    int taken =
        sql.update(
            Sql.ACQUIRE_LEASE,
            "owner",
            owner,
            "ttl",
            ttl.toMillis(),
            "outbox",
            outbox,
            "partition",
            partition);
    if (taken == 0) {
      return Optional.empty();
    }
    long epoch = sql.number(Sql.LEASE_EPOCH, "outbox", outbox, "partition", partition).longValue();
    return Optional.of(new Lease(outbox, partition, owner, epoch));
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    return sql.updateFenced(Sql.RENEW_LEASE, lease, "ttl", ttl.toMillis()) == 1;
  }

  @Override
  public void release(Lease lease) {
    sql.updateFenced(Sql.RELEASE_LEASE, lease);
  }

  @Override
  public int heartbeat(String outbox, String node, Duration alive, Duration forgetAfter) {
    sql.update(Sql.HEARTBEAT, "outbox", outbox, "node", node);
    sql.update(Sql.FORGET_NODES, "outbox", outbox, "forget", forgetAfter.toMillis());
    return sql.number(Sql.COUNT_NODES, "outbox", outbox, "ttl", alive.toMillis()).intValue();
  }

  @Override
  public void leave(String outbox, String node) {
    sql.update(Sql.LEAVE, "outbox", outbox, "node", node);
  }
}
