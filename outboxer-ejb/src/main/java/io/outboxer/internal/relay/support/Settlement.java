package io.outboxer.internal.relay.support;

import io.outboxer.spi.DeliveryReport;
import java.util.Collection;

/**
 * What the sending task of one relay call settled, as {@link BoundedSends} reports it: outcomes
 * count until the calling thread ends the sending (when the task returned, or at the call's
 * deadline); an outcome settled after that is dropped, and the task sends nothing more.
 */
public final class Settlement {

  private final DeliveryReport.Builder report = DeliveryReport.builder();
  private boolean ended;
  private Runnable onAbandon;

  public Settlement() {}

  /** Records messages the destination confirmed: all of them, or none once the sending ended. */
  public synchronized void confirmed(Collection<Long> ids) {
    if (!ended) {
      ids.forEach(report::confirmed);
    }
  }

  /** Records a message the destination refused for its content, unless the sending ended. */
  public synchronized void failed(long id, String reason) {
    if (!ended) {
      report.failed(id, reason);
    }
  }

  /** True once the sending ended: the task sends nothing more. */
  public synchronized boolean ended() {
    return ended;
  }

  /**
   * Sets what ends a wait of the task if the calling thread abandons it at the deadline: closing
   * the producer or connection it waits in. It runs on the relay's executor, at most once.
   *
   * @return false, having kept nothing, when the sending already ended: the task releases what it
   *     holds itself
   */
  public synchronized boolean onAbandon(Runnable action) {
    onAbandon = action;
    return !ended;
  }

  /**
   * Runs {@code action}, the task's last (keeping a producer for the next call, say), unless the
   * sending ended; once it ran, the task has nothing left for an abandon to end, so what {@link
   * #onAbandon} set is dropped (it would close what the action kept).
   *
   * @return whether it ran
   */
  public synchronized boolean unlessEnded(Runnable action) {
    if (ended) {
      return false;
    }
    action.run();
    onAbandon = null;
    return true;
  }

  /** Ends the sending: what was settled so far is the report. */
  public synchronized DeliveryReport end() {
    ended = true;
    return report.build();
  }

  /** Ends the sending at the deadline; the action that ends the task's wait, or null. */
  synchronized Runnable abandon() {
    ended = true;
    Runnable action = onAbandon;
    onAbandon = null;
    return action;
  }
}
