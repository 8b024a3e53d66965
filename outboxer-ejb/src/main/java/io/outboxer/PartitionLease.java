package io.outboxer;

import java.time.Instant;

/**
 * Who delivers a partition: the worker holding its lease, until when.
 *
 * @param partition the partition
 * @param owner the node holding the lease ({@code outboxer.node-id}), or null when no worker has
 *     held it yet or its holder let it go
 * @param epoch how many times the lease changed hands
 * @param expiresAt when the lease lapses unless renewed, by the database clock; in the past when
 *     nobody holds it
 */
public record PartitionLease(int partition, String owner, long epoch, Instant expiresAt) {}
