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
 * @param traceParent the W3C {@code traceparent} of the span the message was published in, or
 *     {@code null} when it was published outside a trace; relays send it as a {@code traceparent}
 *     header, property or attribute so that the consumer's span joins the publisher's trace
 */
public record Envelope(
    long id,
    String outbox,
    int partition,
    String groupKey,
    String type,
    String payload,
    int attempt,
    String orderingScope,
    String traceParent) {

  /** A message published outside a trace. */
  public Envelope(
      long id,
      String outbox,
      int partition,
      String groupKey,
      String type,
      String payload,
      int attempt,
      String orderingScope) {
    this(id, outbox, partition, groupKey, type, payload, attempt, orderingScope, null);
  }
}
