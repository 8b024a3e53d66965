package io.outboxer.internal.store;

import java.time.Duration;
import java.util.Optional;

/**
 * The partition records, their leases and the delivering nodes' heartbeats. Each method is one
 * transaction; every time is the database's.
 */
public interface LeaseStore {

  /**
   * Records {@code partitions} for {@code outbox}, or refuses a changed count while the outbox
   * still holds rows.
   *
   * @return empty when the count is in force, otherwise why it was refused
   */
  Optional<String> recordPartitions(String outbox, int partitions);

  /** Creates the lease rows of {@code outbox}'s partitions that do not exist yet. */
  void createLeases(String outbox, int partitions);

  /** Takes the lease of a partition if it is free or expired, with a new epoch. */
  Optional<Lease> acquire(String outbox, int partition, String owner, Duration ttl);

  /** Extends a lease that is still valid; false when it was lost. */
  boolean renew(Lease lease, Duration ttl);

  /** Gives a lease back so that another server can take the partition at once. */
  void release(Lease lease);

  /**
   * Records that {@code node} delivers {@code outbox} now, and forgets nodes silent for {@code
   * forgetAfter}.
   *
   * @return how many nodes delivered the outbox within {@code alive}, this one included
   */
  int heartbeat(String outbox, String node, Duration alive, Duration forgetAfter);

  /** Forgets {@code node}'s heartbeat for {@code outbox}: it no longer delivers it. */
  void leave(String outbox, String node);
}
