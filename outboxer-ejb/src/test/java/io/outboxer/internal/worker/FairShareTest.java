package io.outboxer.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class FairShareTest {

  @Property
  void theSharesOfAllNodesCoverEveryPartitionAndDifferByOneAtMost(
      @ForAll @IntRange(min = 1, max = 1024) int partitions,
      @ForAll @IntRange(min = 1, max = 64) int nodes) {
    int share = FairShare.of(partitions, nodes);

    assertThat(share * nodes).isGreaterThanOrEqualTo(partitions);
    assertThat((share - 1) * nodes).isLessThan(partitions);
  }

  @Test
  void aNodeTakesUpToItsShareAndHandsBackWhatIsAboveIt() {
    FairShare share = new FairShare(8);
    for (int i = 0; i < 8; i++) {
      assertThat(share.tryTake()).isTrue();
    }
    assertThat(share.tryTake()).as("all 8 held").isFalse();
    assertThat(share.tryHandBack()).as("alone, nothing to hand back").isFalse();

    share.nodes(3);

    assertThat(share.share()).isEqualTo(3);
    for (int i = 0; i < 5; i++) {
      assertThat(share.tryHandBack()).isTrue();
    }
    assertThat(share.tryHandBack()).isFalse();
    assertThat(share.held()).isEqualTo(3);
    assertThat(share.tryTake()).isFalse();

    share.giveBack();
    share.nodes(2);

    assertThat(share.tryTake()).isTrue();
    assertThat(share.tryTake()).isTrue();
    assertThat(share.tryTake()).isFalse();
    assertThat(share.held()).isEqualTo(4);
  }

  @Test
  void noHeartbeatYetCountsAsAlone() {
    assertThat(FairShare.of(8, 0)).isEqualTo(8);
    assertThat(new FairShare(5).share()).isEqualTo(5);
  }
}
