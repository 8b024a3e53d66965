package io.outboxer.internal.store;

/** A message row as the admin operations see it. */
public record StoredMessage(
    long id, String outbox, int partition, String groupKey, int state, int attempts) {}
