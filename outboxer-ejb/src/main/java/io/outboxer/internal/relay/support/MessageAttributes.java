package io.outboxer.internal.relay.support;

/**
 * The names under which the JMS relay (message properties) and the SQS relay (message attributes)
 * send what a consumer needs beside the payload: to drop duplicates (the id and group) and to
 * route.
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

  private MessageAttributes() {}
}
