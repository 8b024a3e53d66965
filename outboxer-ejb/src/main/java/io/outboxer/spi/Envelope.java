package io.outboxer.spi;

/**
 * One message handed to a {@link Relay}: what was published, plus what a consumer needs to drop
 * duplicates (the id and group) and to route it.
 *
 * @param id the message id, increasing in insertion order within the outbox
 * @param outbox the outbox name
 * @param partition the outbox partition the message belongs to (its group's hash)
 * @param groupKey the ordering key, or {@code null} for an unordered message
 * @param type the message's type name (its Java class name)
 * @param payload the message as JSON
 * @param attempt which delivery attempt this is, starting at 1
 * @param orderingScope the scope whose order this message must keep: the group key with group
 *     ordering, one scope for the whole outbox with total ordering, {@code null} (independent of
 *     everything) for ungrouped messages and with no ordering. A relay stops a scope at its first
 *     failure.
 */
public record Envelope(
    long id,
    String outbox,
    int partition,
    String groupKey,
    String type,
    String payload,
    int attempt,
    String orderingScope) {}
