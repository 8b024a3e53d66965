package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CommitOrderTest {

  @Test
  void withNobodyInFlightEverythingUpToTheLastIdIsFinal() {
    assertThat(CommitOrder.bound(41, null)).isEqualTo(42);
    assertThat(CommitOrder.bound(0, null)).isEqualTo(1);
  }

  @Test
  void theSmallestBoundInFlightHoldsBackItsIdAndAllAfterIt() {
    assertThat(CommitOrder.bound(100, 12L)).isEqualTo(12);
    assertThat(CommitOrder.bound(100, 101L)).isEqualTo(101);
  }

  @Test
  void aBoundTakenAfterTheLastValueWasReadHoldsBackNothingBelowIt() {
    // Its ids are drawn after the last value was read: everything up to that value is final.
    assertThat(CommitOrder.bound(100, 230L)).isEqualTo(101);
  }

  @Test
  void partitionLocksNeverShareTheirFirstKeyWithIdLocks() {
    for (String outbox : new String[] {"orders", "default", "a", "x".repeat(100)}) {
      assertThat(CommitOrder.space(outbox)).isNegative();
    }
    assertThat(CommitOrder.space("orders")).isNotEqualTo(CommitOrder.space("payments"));
  }
}
