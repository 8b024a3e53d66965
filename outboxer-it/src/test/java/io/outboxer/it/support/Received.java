package io.outboxer.it.support;

/** One message as a consumer of the destination saw it. */
public record Received(long id, String outbox, String group, String type, String payload) {}
