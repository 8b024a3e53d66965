package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchOutcomeTest {

  private static Envelope e(long id, String scope) {
    return new Envelope(id, "o", 0, scope, "T", "{}", 1, scope);
  }

  @Test
  void confirmationsAfterAFailureOfTheSameScopeAreIgnored() {
    List<Envelope> batch = List.of(e(1, "a"), e(2, "b"), e(3, "a"), e(4, "b"), e(5, null));
    DeliveryReport report =
        DeliveryReport.builder()
            .failed(1, "boom")
            .confirmed(2)
            .confirmed(3) // a relay bug: 3 is behind the failed 1 of scope a
            .confirmed(4)
            .confirmed(5)
            .build();

    BatchOutcome outcome = BatchOutcome.decide(batch, report);

    assertThat(outcome.confirmed()).extracting(Envelope::id).containsExactly(2L, 4L, 5L);
    assertThat(outcome.failed()).extracting(f -> f.envelope().id()).containsExactly(1L);
    assertThat(outcome.failed().get(0).reason()).isEqualTo("boom");
    assertThat(outcome.untouched()).extracting(Envelope::id).containsExactly(3L);
  }

  @Test
  void anUnreportedMessageStopsItsScopeButNotOthers() {
    List<Envelope> batch = List.of(e(1, "a"), e(2, "a"), e(3, "b"), e(4, null), e(5, null));
    DeliveryReport report =
        DeliveryReport.builder().confirmed(2).confirmed(3).failed(4, "x").confirmed(5).build();

    BatchOutcome outcome = BatchOutcome.decide(batch, report);

    assertThat(outcome.confirmed()).extracting(Envelope::id).containsExactly(3L, 5L);
    assertThat(outcome.failed()).extracting(f -> f.envelope().id()).containsExactly(4L);
    assertThat(outcome.untouched()).extracting(Envelope::id).containsExactly(1L, 2L);
  }
}
