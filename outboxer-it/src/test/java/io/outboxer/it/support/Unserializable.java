package io.outboxer.it.support;

import io.outboxer.OutboxMessage;

/** A message JSON-B cannot serialize: reading its only property throws. */
public class Unserializable implements OutboxMessage {

  public String getValue() {
    throw new IllegalStateException("value is not readable");
  }
}
