package io.outboxer.internal.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NodeShareTest {

  @Test
  void aNodeTakesUpToItsShareAndHandsBackWhatIsAboveIt() {
    NodeShare share = new NodeShare(8);
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
}
