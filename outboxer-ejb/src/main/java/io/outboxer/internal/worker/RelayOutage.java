package io.outboxer.internal.worker;

import io.outboxer.internal.rules.Backoff;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.internal.rules.RetryPolicy;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Whether one partition's relay is unavailable: a call that threw (the destination unreachable,
 * timing out, fencing the producer, missing) charges no message; the partition pauses with the
 * outbox's backoff, doubling from {@code backoff.min} to {@code backoff.max} while the outage
 * lasts. The outage is logged once when it starts and once when it ends, not per batch.
 */
final class RelayOutage {

  private static final Logger LOG = Logger.getLogger(RelayOutage.class.getName());

  /** Hears when the outage starts or goes on (with why), and when it ends (null). */
  interface Listener {
    void changed(String why);
  }

  private final String where;
  private final Listener listener;
  private final RetryPolicy backoff;
  private final LongSupplier clock;
  private int failedCalls;
  private Deadline pausedUntil;

  /**
   * @param where the partition, for the log
   * @param backoff the outbox's policy, whose backoff paces the retries
   */
  RelayOutage(String where, RetryPolicy backoff, LongSupplier clock, Listener listener) {
    this.where = where;
    this.listener = listener;
    this.backoff = backoff;
    this.clock = clock;
  }

  /** Records a relay call that threw; the partition pauses before its next batch. */
  void failed(RuntimeException cause) {
    failedCalls++;
    pausedUntil =
        Deadline.in(Backoff.after(failedCalls, backoff.backoffMin(), backoff.backoffMax()), clock);
    String reason = String.valueOf(cause);
    if (failedCalls == 1) {
      LOG.warning(
          "OUTBOXER-3002 relay of "
              + where
              + " is unavailable; its messages wait, no attempt charged: "
              + reason);
    }
    LOG.log(Level.FINE, "relay of " + where + " failed " + failedCalls + " times in a row", cause);
    listener.changed("unavailable (failed calls in a row: " + failedCalls + "): " + reason);
  }

  /** Records a relay call that returned: an outage, if there was one, is over. */
  void answered() {
    if (failedCalls > 0) {
      listener.changed(null);
      LOG.info(
          "OUTBOXER-3010 relay of "
              + where
              + " is available again after "
              + failedCalls
              + " failed calls in a row");
    }
    failedCalls = 0;
    pausedUntil = null;
  }

  /** True while the partition waits before trying its relay again. */
  boolean pausing() {
    return pausedUntil != null && !pausedUntil.passed();
  }
}
