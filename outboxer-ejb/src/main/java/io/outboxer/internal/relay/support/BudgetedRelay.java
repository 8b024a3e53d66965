package io.outboxer.internal.relay.support;

import io.outboxer.internal.rules.Deadline;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import io.outboxer.spi.Relay;
import java.time.Duration;
import java.util.List;

/**
 * A built-in relay: each call ends by the earlier of the time the engine leaves it and the call
 * budget it was created with.
 */
public interface BudgetedRelay extends Relay {

  /** The most a relay keeps of its time to give up a wait and return: see {@link #deadline}. */
  Duration MAX_RESERVE = Duration.ofMillis(500);

  /** The longest one call may take. */
  Duration callBudget();

  @Override
  DeliveryReport deliver(List<Envelope> batch, Duration timeLeft);

  @Override
  default DeliveryReport deliver(List<Envelope> batch) {
    return deliver(batch, callBudget());
  }

  /**
   * The deadline by which a call given {@code timeLeft} stops sending and gives up what it waits
   * for: the earlier of {@code timeLeft} and the call budget, less a tenth of it (at most {@link
   * #MAX_RESERVE}), kept to abandon a blocked wait and return before the engine's deadline. The
   * engine ignores the report of a call that returns after that.
   */
  default Deadline deadline(Duration timeLeft) {
    Duration time = timeLeft.compareTo(callBudget()) < 0 ? timeLeft : callBudget();
    Duration reserve = time.dividedBy(10);
    return Deadline.in(time.minus(reserve.compareTo(MAX_RESERVE) < 0 ? reserve : MAX_RESERVE));
  }
}
