package io.outboxer.internal.store;

import io.outboxer.internal.rules.SharedTerms;
import java.time.Duration;
import java.util.Optional;

/**
 * The partition records, their leases and the delivering nodes' heartbeats. Each method is one
 * transaction; every time is the database's.
 */
public interface LeaseStore {

  /**
   * Records {@code terms} for {@code outbox}, or refuses them where the record holds others that
   * cannot change now ({@link SharedTerms#judge}): other servers deliver the outbox by them, or its
   * rows were hashed over another partition count.
   *
   * @param node this server's node id, whose own heartbeats do not count as another server's
   * @param alive how recent a heartbeat of another server counts it as running (the lease's ttl)
   * @param delivers whether this server delivers; one that only publishes keeps the settings
   * @return empty when the terms are in force, otherwise why they were refused
   */
  Optional<String> recordOutbox(
      String outbox, SharedTerms terms, String node, Duration alive, boolean delivers);

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
