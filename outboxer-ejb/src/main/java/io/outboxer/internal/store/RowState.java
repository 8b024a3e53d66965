package io.outboxer.internal.store;

import io.outboxer.MessageState;

/**
 * The delivery state of a message row, stored as its {@link #code()} in {@code
 * outboxer_message.state}. The worker's scan reads only {@link #READY} rows (ADR 0002), so neither
 * a blocked group's backlog nor dead rows add to the cost of a batch.
 */
public enum RowState {
  /** Due for delivery. */
  READY(0),
  /** Behind a failing head of its group: released when the head is confirmed, dead or discarded. */
  HELD(1),
  /** Failed {@code max-attempts} times: waits for an operator. */
  DEAD(2),
  /** A failed head of its group (or an ungrouped message) waiting for its retry time. */
  RETRYING(3);

  private final int code;

  RowState(int code) {
    this.code = code;
  }

  /** The row state of messages an operator asks for by {@code state}. */
  public static RowState of(MessageState state) {
    return switch (state) {
      case READY -> READY;
      case HELD -> HELD;
      case RETRYING -> RETRYING;
      case DEAD -> DEAD;
    };
  }

  /** How operators see this state. */
  public MessageState asMessageState() {
    return switch (this) {
      case READY -> MessageState.READY;
      case HELD -> MessageState.HELD;
      case RETRYING -> MessageState.RETRYING;
      case DEAD -> MessageState.DEAD;
    };
  }

  /** The stored value. */
  public int code() {
    return code;
  }

  /** The state stored as {@code code}. */
  public static RowState of(int code) {
    for (RowState s : values()) {
      if (s.code == code) {
        return s;
      }
    }
    throw new IllegalArgumentException("no row state has the code " + code);
  }
}
