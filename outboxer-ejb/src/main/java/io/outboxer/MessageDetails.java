package io.outboxer;

import java.time.Instant;

/**
 * One message of an outbox as an operator sees it (its payload left out).
 *
 * @param id the message id
 * @param partition the partition that delivers it
 * @param groupKey its group, or null when it is unordered
 * @param type the message's Java type
 * @param state where it stands
 * @param attempts how many deliveries failed so far
 * @param createdAt when it was published
 * @param lastAttemptAt when its last delivery failed, or null
 * @param nextAttemptAt when it is due (again)
 * @param lastError the relay's last reason for failing it, or null
 */
public record MessageDetails(
    long id,
    int partition,
    String groupKey,
    String type,
    MessageState state,
    int attempts,
    Instant createdAt,
    Instant lastAttemptAt,
    Instant nextAttemptAt,
    String lastError) {}
