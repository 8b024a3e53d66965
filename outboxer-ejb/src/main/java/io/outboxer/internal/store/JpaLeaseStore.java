package io.outboxer.internal.store;

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
  public Optional<String> recordPartitions(String outbox, int partitions) {
    sql.update(Sql.INSERT_OUTBOX, "name", outbox, "partitions", partitions);
    int recorded = sql.number(Sql.RECORDED_PARTITIONS, "name", outbox).intValue();
    if (recorded == partitions) {
      return Optional.empty();
    }
    long rows = sql.number(Sql.COUNT_OUTBOX_ROWS, "name", outbox).longValue();
    if (rows > 0) {
      return Optional.of(
          "OUTBOXER-1101 outbox '"
              + outbox
              + "' holds "
              + rows
              + " messages hashed over "
              + recorded
              + " partitions, but outboxer.outbox."
              + outbox
              + ".partitions is now "
              + partitions
              + ": its workers do not start until the change is undone or the outbox is drained"
              + " (pending and dead messages delivered or discarded)");
    }
    sql.update(Sql.UPDATE_PARTITIONS, "name", outbox, "partitions", partitions);
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
