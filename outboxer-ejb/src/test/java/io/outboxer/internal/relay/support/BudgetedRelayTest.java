package io.outboxer.internal.relay.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BudgetedRelayTest {

  private final BudgetedRelay tenSeconds =
      new BudgetedRelay() {
        @Override
        public Duration callBudget() {
          return Duration.ofSeconds(10);
        }

        @Override
        public DeliveryReport deliver(List<Envelope> batch, Duration timeLeft) {
          throw new AssertionError("not called");
        }
      };

  /** The lower bounds leave a loaded machine time between making a deadline and reading it. */
  @Test
  void aCallEndsItsWorkATenthBeforeTheEarlierOfTheTimeLeftAndTheBudget() {
    assertThat(tenSeconds.deadline(Duration.ofSeconds(2)).remaining())
        .isBetween(Duration.ofMillis(1300), Duration.ofMillis(1800));
    assertThat(tenSeconds.deadline(Duration.ofSeconds(60)).remaining())
        .as("the budget, less at most 500 ms")
        .isBetween(Duration.ofMillis(9000), Duration.ofMillis(9500));
  }
}
