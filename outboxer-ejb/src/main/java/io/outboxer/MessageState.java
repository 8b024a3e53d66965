package io.outboxer;

/** Where a message stands on its way to the relay. */
public enum MessageState {
  /** Due for delivery (a failed message due again included). */
  READY,
  /** Held behind a failing message of its group: goes out once that one is delivered or gone. */
  HELD,
  /** Failed, and waits for its next attempt. */
  RETRYING,
  /** Failed {@code max-attempts} times: waits for an operator to retry or discard it. */
  DEAD
}
