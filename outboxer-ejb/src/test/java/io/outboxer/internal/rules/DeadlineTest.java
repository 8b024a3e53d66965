package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeadlineTest {

  private final AtomicLong nanos = new AtomicLong(-5_000_000_000L);

  @Test
  void aDeadlinePassesAtItsTimeOnItsClock() {
    Deadline deadline = Deadline.in(Duration.ofSeconds(2), nanos::get);

    assertThat(deadline.passed()).isFalse();

    nanos.addAndGet(Duration.ofMillis(1999).toNanos());
    assertThat(deadline.passed()).isFalse();

    nanos.addAndGet(Duration.ofMillis(1).toNanos());
    assertThat(deadline.passed()).isTrue();

    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(deadline.passed()).as("and stays passed").isTrue();
  }

  @Test
  void whatIsLeftIsNeverNegativeAndADeadlineWithinADurationIsTheEarlierOfTheTwo() {
    Deadline deadline = Deadline.in(Duration.ofSeconds(10), nanos::get);
    nanos.addAndGet(Duration.ofSeconds(4).toNanos());

    assertThat(deadline.remaining()).isEqualTo(Duration.ofSeconds(6));
    assertThat(deadline.within(Duration.ofSeconds(2)).remaining()).isEqualTo(Duration.ofSeconds(2));
    assertThat(deadline.within(Duration.ofSeconds(8))).isSameAs(deadline);

    nanos.addAndGet(Duration.ofSeconds(7).toNanos());
    assertThat(deadline.remaining()).isEqualTo(Duration.ZERO);
  }

  @Test
  void aDeadlineWorksAcrossTheClocksOverflow() {
    nanos.set(Long.MAX_VALUE - 10);
    Deadline deadline = Deadline.in(Duration.ofNanos(100), nanos::get);

    nanos.set(Long.MAX_VALUE);
    assertThat(deadline.passed()).isFalse();
    nanos.set(Long.MIN_VALUE + 88);
    assertThat(deadline.passed()).isFalse();

    nanos.set(Long.MIN_VALUE + 89);
    assertThat(deadline.passed()).isTrue();
  }

  @Test
  void aLeaseIsRenewedAndARelayCallEndsWithinAThirdOfItsTtl() {
    LeaseTerms terms = new LeaseTerms(Duration.ofSeconds(30));

    assertThat(terms.renewAfter()).isEqualTo(Duration.ofSeconds(10));
    assertThat(terms.callBudget()).isEqualTo(Duration.ofSeconds(10));
    assertThat(terms.heartbeatInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(terms.forgetNodesAfter()).isEqualTo(Duration.ofMinutes(5));
    // A batch starts at most renewAfter after a renewal, its call ends within the budget: the
    // completing transaction still has the last third of the lease.
    assertThat(terms.renewAfter().plus(terms.callBudget())).isLessThan(terms.ttl());
    assertThatThrownBy(() -> new LeaseTerms(Duration.ZERO))
        .hasMessage("a lease ttl must be above zero, was PT0S");
  }
}
