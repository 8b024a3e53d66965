package io.outboxer.internal.store;

/**
 * The right of one worker to deliver one partition, valid while the lease row still carries this
 * owner and epoch and has not expired by the database clock.
 */
public record Lease(String outbox, int partition, String owner, long epoch) {}
