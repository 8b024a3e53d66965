package io.outboxer.internal.relay.jms;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JmsRelayTest {

  @Test
  void theGroupSequenceIsTheIdWhileItFitsAndStaysPositiveAfter() {
    assertThat(JmsRelay.groupSeq(1)).isEqualTo(1);
    assertThat(JmsRelay.groupSeq(42)).isEqualTo(42);
    assertThat(JmsRelay.groupSeq(Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
    assertThat(JmsRelay.groupSeq(Integer.MAX_VALUE + 1L)).isEqualTo(1);
    assertThat(JmsRelay.groupSeq(Long.MAX_VALUE)).isPositive();
  }
}
