package io.outboxer.internal.rules;

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
    int share = new FairShare(partitions, nodes).share();

    assertThat(share * nodes).isGreaterThanOrEqualTo(partitions);
    assertThat((share - 1) * nodes).isLessThan(partitions);
  }

  @Test
  void aNodeMayTakeUpToItsShareAndIsOverItAboveIt() {
    FairShare share = new FairShare(8, 3);

    assertThat(share.share()).isEqualTo(3);
    assertThat(share.mayTake(2)).isTrue();
    assertThat(share.mayTake(3)).isFalse();
    assertThat(share.overShare(3)).isFalse();
    assertThat(share.overShare(4)).isTrue();
  }

  @Test
  void noHeartbeatYetCountsAsAlone() {
    assertThat(new FairShare(8, 0).share()).isEqualTo(8);
    assertThat(FairShare.alone(5).share()).isEqualTo(5);
  }
}
