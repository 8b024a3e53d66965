package io.outboxer.internal.relay.support;

/**
 * The names under which the JMS relay (message properties) and the SQS relay (message attributes)
 * send what a consumer needs beside the payload: to drop duplicates (the id and group), to route,
 * and to join the publisher's trace. The Kafka relay sends the same as record headers.
 */
public final class MessageAttributes {

  /** The outbox message id (a long; a Number attribute on SQS). */
  public static final String ID = "OutboxerId";

  /** The outbox name. */
  public static final String OUTBOX = "OutboxerOutbox";

  /** The group key, absent for ungrouped messages. */
  public static final String GROUP = "OutboxerGroup";

  /** The message type. */
  public static final String TYPE = "OutboxerType";

  /** The delivery attempt, from 1 (a Number attribute on SQS). */
  public static final String ATTEMPT = "OutboxerAttempt";

  /**
   * The W3C trace context of the span the message was published in ({@code
   * 00-<trace-id>-<span-id>-<flags>}), absent for messages published outside a trace: the name
   * OpenTelemetry's W3C propagator reads, so that the consumer's span joins the publisher's trace.
   */
  public static final String TRACE_PARENT = "traceparent";

  private MessageAttributes() {}
}
