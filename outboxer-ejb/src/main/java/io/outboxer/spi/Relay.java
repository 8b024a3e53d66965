package io.outboxer.spi;

import java.time.Duration;
import java.util.List;

/**
 * Hands ordered batches of messages to a destination (a JMS queue, a Kafka topic, an SQS FIFO
 * queue).
 *
 * <p>The contract every relay keeps:
 *
 * <ul>
 *   <li>The batch is in id order. A message may be reported confirmed only once the destination has
 *       durably accepted it (a synchronous persistent send, a broker acknowledgement).
 *   <li>Per {@linkplain Envelope#orderingScope() ordering scope} (the group key, or the whole
 *       outbox with total ordering), the confirmed messages are a prefix of that scope's messages
 *       in the batch: once a message failed, no later message of the same scope may become visible
 *       to consumers in this call. A relay stops a scope at its first failure and leaves the rest
 *       of that scope out of the report.
 *   <li>Messages without a scope are independent of each other and of every scope.
 *   <li>{@linkplain DeliveryReport.Builder#failed Failed} means: the destination refused this
 *       message for its own content (too large, invalid). It costs the message an attempt, and
 *       after {@code max-attempts} its life. Never report a message failed because the destination
 *       is unreachable, timed out, throttled, fenced the producer or does not exist, nor because
 *       another message of the same request or transaction was refused: when a request fails
 *       without saying which message caused it, find out (send the suspects again, or halve the
 *       request) or leave them unreported.
 *   <li>A message left out of the report stays pending with its attempt not counted. An exception
 *       from {@link #deliver} means the destination is unavailable and nothing of the batch is
 *       known to be confirmed: no message is charged, and the partition waits with the outbox's
 *       backoff before its next call.
 * </ul>
 *
 * <p>The engine enforces the prefix rule on its side too: whatever a relay reports after a failure
 * of the same group stays pending and untouched.
 */
public interface Relay extends AutoCloseable {

  /** Delivers {@code batch} in order and reports, per message, what happened to it. */
  DeliveryReport deliver(List<Envelope> batch);

  /**
   * Delivers {@code batch} as {@link #deliver(List)} does, returning within {@code timeLeft}: the
   * engine starts each batch's deadline (the call budget, a third of {@code outboxer.lease.ttl})
   * before it reads the batch, and passes what is left of it. Bound every wait by it (when a wait
   * cannot be bounded, wait on another thread and give it up at the deadline), send nothing new
   * once it is spent, and report only what the destination confirmed by then: a message whose send
   * was under way stays unreported, and is sent again later.
   *
   * <p>The engine ignores the report of a call that returns after {@code timeLeft}: nothing of the
   * batch is recorded (it is delivered again), the overrun is logged ({@code OUTBOXER-3011}) and
   * the partition waits with the outbox's backoff. By default this calls {@link #deliver(List)},
   * for a relay that keeps to the budget it was created with.
   */
  default DeliveryReport deliver(List<Envelope> batch, Duration timeLeft) {
    return deliver(batch);
  }

  /** Releases the relay's connections. Called when the outbox stops. */
  @Override
  default void close() {}
}
