package io.outboxer.internal.store;

/**
 * The oldest publishing transaction still in flight in a partition, which holds back the
 * partition's rows from {@code id} on until it ends (ADR 0010).
 *
 * @param partition the partition
 * @param id the lower bound of the ids it may commit (the identity's next value when it first
 *     published): its first id, or a little below when other transactions drew ids meanwhile
 * @param backend the PostgreSQL backend (pid) running the transaction, null for a prepared one
 * @param openMillis how long the transaction has been open, null when the database does not say
 */
public record InFlightPublish(int partition, long id, Integer backend, Long openMillis) {}
