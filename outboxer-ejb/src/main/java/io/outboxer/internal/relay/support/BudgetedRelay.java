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

  /** The longest one call may take. */
  Duration callBudget();

  @Override
  DeliveryReport deliver(List<Envelope> batch, Duration timeLeft);

  @Override
  default DeliveryReport deliver(List<Envelope> batch) {
    return deliver(batch, callBudget());
  }

  /** The deadline of a call given {@code timeLeft}. */
  default Deadline deadline(Duration timeLeft) {
    return Deadline.in(timeLeft).within(callBudget());
  }
}
