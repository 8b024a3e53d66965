package io.outboxer.internal.store;

/**
 * The oldest publish still in flight in a partition: the smallest id its transaction drew, which
 * holds back the partition's rows from that id on until the transaction ends (ADR 0008).
 *
 * @param partition the partition
 * @param id the smallest id the transaction locked
 * @param backend the PostgreSQL backend (pid) running the transaction, null for a prepared one
 * @param openMillis how long the transaction has been open, null when the database does not say
 */
public record InFlightPublish(int partition, long id, Integer backend, Long openMillis) {}
