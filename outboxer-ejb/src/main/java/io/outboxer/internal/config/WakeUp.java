package io.outboxer.internal.config;

/**
 * The event asking the worker of one partition to look for rows now, fired after a transaction
 * committed rows there; polling at {@code outboxer.poll-interval} is only the fallback.
 */
public record WakeUp(String outbox, int partition) {}
