package io.outboxer.internal.store;

/** A message row as the admin operations see it. */
public record StoredMessage(
    long id, String outbox, int partition, String groupKey, RowState state, int attempts) {

  /**
   * True when the message is the failing head of its group: waiting for its retry, or due again
   * after a failure. Removing it lets its group move on.
   */
  public boolean isFailingHead() {
    return state == RowState.RETRYING || (state == RowState.READY && attempts > 0);
  }
}
