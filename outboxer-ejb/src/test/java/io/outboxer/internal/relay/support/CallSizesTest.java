package io.outboxer.internal.relay.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CallSizesTest {

  private final CallSizes sizes = new CallSizes();

  @Test
  void aCallThatTimedOutWithMessagesUnsettledHalvesTheNextOnesDownToOne() {
    assertThat(sizes.limit(0, 2000)).isEqualTo(2000);

    sizes.ended(0, 2000, 0, true);
    assertThat(sizes.limit(0, 2000)).isEqualTo(1000);
    sizes.ended(0, 1000, 300, true);
    assertThat(sizes.limit(0, 2000)).isEqualTo(500);
    for (int i = 0; i < 12; i++) {
      sizes.ended(0, sizes.limit(0, 2000), 0, true);
    }

    assertThat(sizes.limit(0, 2000)).isEqualTo(1);
    assertThat(sizes.limit(1, 2000)).as("another partition").isEqualTo(2000);
  }

  @Test
  void eachCallThatSettledAllItSentDoublesTheNextUpToTheWholeBatch() {
    sizes.ended(0, 2000, 0, true);
    sizes.ended(0, 1000, 0, true);
    assertThat(sizes.limit(0, 2000)).isEqualTo(500);

    sizes.ended(0, 500, 500, false);
    assertThat(sizes.limit(0, 2000)).isEqualTo(1000);
    sizes.ended(0, 1000, 1000, false);
    sizes.ended(0, 2000, 2000, false);

    assertThat(sizes.limit(0, 2000)).isEqualTo(2000);
    assertThat(sizes.limit(0, 100)).as("never more than the batch").isEqualTo(100);
  }

  @Test
  void aCallThatFailedBeforeItsDeadlineOrSettledPartOfItInTimeKeepsTheSize() {
    sizes.ended(0, 2000, 0, true);

    sizes.ended(0, 1000, 0, false); // the broker unreachable: no sign the size is to blame
    sizes.ended(0, 1000, 400, false); // a refused record ended the call early

    assertThat(sizes.limit(0, 2000)).isEqualTo(1000);
  }
}
