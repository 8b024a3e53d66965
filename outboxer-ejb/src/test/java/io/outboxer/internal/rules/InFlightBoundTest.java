package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InFlightBoundTest {

  /** Holders as the lock table shows them: transaction, smallest locked id or null. */
  private static Map<String, Long> holders(Object... txAndId) {
    Map<String, Long> holders = new HashMap<>();
    for (int i = 0; i < txAndId.length; i += 2) {
      holders.put((String) txAndId[i], (Long) txAndId[i + 1]);
    }
    return holders;
  }

  @Test
  void withNobodyInFlightEverythingUpToTheLastIdIsFinal() {
    InFlightBound bound = new InFlightBound(41, holders());

    assertThat(bound.settled()).isTrue();
    assertThat(bound.bound()).isEqualTo(42);
  }

  @Test
  void theSmallestIdInFlightBoundsTheRead() {
    InFlightBound bound = new InFlightBound(100, holders("3/7", 57L, "4/2", 12L));

    assertThat(bound.bound()).isEqualTo(12);
  }

  @Test
  void anIdAboveTheLastValueReadBoundsNothingLower() {
    // Drawn after the last value was read: below the last value everything is final.
    InFlightBound bound = new InFlightBound(100, holders("3/7", 230L));

    assertThat(bound.bound()).isEqualTo(101);
  }

  @Test
  void aHolderWithoutAnIdIsLookedAtAgainUntilItShowsOne() {
    InFlightBound bound = new InFlightBound(100, holders("3/7", null, "4/2", 80L));

    assertThat(bound.settled()).isFalse();
    assertThatThrownBy(bound::bound)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("1 holders of the partition's lock show no id yet");

    bound.reread(holders("3/7", null, "4/2", 80L));
    assertThat(bound.settled()).isFalse();

    bound.reread(holders("3/7", 64L, "4/2", 80L));
    assertThat(bound.settled()).isTrue();
    assertThat(bound.bound()).isEqualTo(64);
  }

  @Test
  void aHolderThatEndedWithoutShowingAnIdBoundsNothing() {
    InFlightBound bound = new InFlightBound(100, holders("3/7", null, "4/2", 80L));

    bound.reread(holders("4/2", 80L));

    assertThat(bound.bound()).isEqualTo(80);
  }

  @Test
  void holdersThatCameAfterTheFirstLookAreIgnored() {
    // They took the partition's lock after the last value was read: their ids are above it.
    InFlightBound bound = new InFlightBound(100, holders("3/7", null));

    bound.reread(holders("5/9", null, "6/1", 20L));

    assertThat(bound.settled()).isTrue();
    assertThat(bound.bound()).isEqualTo(101);
  }

  @Test
  void partitionAndIdLocksNeverShareTheirFirstKey() {
    for (String outbox : new String[] {"orders", "default", "a", "x".repeat(100)}) {
      assertThat(CommitOrder.space(outbox)).isNegative();
    }
    long id = (5L << 32) | 0xFFFF_FFFEL;
    assertThat(CommitOrder.high(id)).isEqualTo(5);
    assertThat(Integer.toUnsignedLong(CommitOrder.low(id))).isEqualTo(0xFFFF_FFFEL);
    assertThat(CommitOrder.high(Long.MAX_VALUE)).isNotNegative();
    assertThatThrownBy(() -> CommitOrder.high(0)).hasMessage("ids are positive, not 0");
  }
}
