package io.outboxer.internal.store;

/**
 * What an outbox holds right now, for its gauges.
 *
 * @param pending rows still to be delivered (ready, held or waiting for a retry)
 * @param dead dead rows, waiting for an operator
 * @param oldestPendingMillis how long the oldest pending row has waited, in milliseconds of the
 *     database clock; 0 when nothing is pending
 * @param heldGroups groups whose head failed and waits for its retry or is due again: the groups
 *     whose later messages are held back
 */
public record Backlog(long pending, long dead, long oldestPendingMillis, long heldGroups) {

  /** An outbox that holds nothing. */
  public static final Backlog EMPTY = new Backlog(0, 0, 0, 0);
}
