package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.internal.rules.Completion.Failure;
import io.outboxer.internal.rules.Completion.GroupEffect;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  private static final Duration MIN = Duration.ofMillis(100);
  private static final Duration MAX = Duration.ofSeconds(1);

  private static Envelope e(long id, String group, int attempt) {
    return new Envelope(id, "o", 0, group, "T", "{}", attempt, group);
  }

  private static Completion complete(RetryPolicy policy, List<Envelope> batch, DeliveryReport r) {
    return policy.complete(BatchOutcome.decide(batch, r));
  }

  @Test
  void aFirstFailureWaitsTheMinimumAndAConfirmedRetryReleasesItsGroup() {
    RetryPolicy policy = new RetryPolicy(Ordering.GROUP, 0, MIN, MAX);
    List<Envelope> batch = List.of(e(1, "a", 1), e(2, "b", 3), e(3, null, 1), e(4, "c", 1));
    DeliveryReport report =
        DeliveryReport.builder().failed(1, "no").confirmed(2).failed(3, "no").confirmed(4).build();

    Completion completion = complete(policy, batch, report);

    assertThat(completion.delete()).containsExactly(2L, 4L);
    assertThat(completion.release()).as("b's head had failed before").containsExactly("b");
    assertThat(completion.failures())
        .containsExactly(
            new Failure(1, "a", "no", MIN, GroupEffect.NONE),
            new Failure(3, null, "no", MIN, GroupEffect.NONE));
  }

  @Test
  void aFailingHeadBacksOffExponentiallyAndDiesAtMaxAttemptsReleasingItsGroup() {
    RetryPolicy policy = new RetryPolicy(Ordering.GROUP, 3, MIN, MAX);
    List<Envelope> batch = List.of(e(1, "a", 2), e(2, "b", 3));
    DeliveryReport report = DeliveryReport.builder().failed(1, "x").failed(2, "y").build();

    Completion completion = complete(policy, batch, report);

    assertThat(completion.failures())
        .containsExactly(
            new Failure(1, "a", "x", Duration.ofMillis(200), GroupEffect.NONE),
            new Failure(2, "b", "y", null, GroupEffect.RELEASE));
    assertThat(completion.failures().get(1).dead()).isTrue();
    assertThat(completion.delete()).isEmpty();
    assertThat(completion.release()).isEmpty();
  }

  @Test
  void withoutGroupOrderingNoGroupIsHeldOrReleased() {
    for (Ordering ordering : List.of(Ordering.TOTAL, Ordering.NONE)) {
      RetryPolicy policy = new RetryPolicy(ordering, 1, MIN, MAX);
      List<Envelope> batch = List.of(e(1, "a", 2), e(2, "b", 1));
      DeliveryReport report = DeliveryReport.builder().confirmed(1).failed(2, "z").build();

      Completion completion = complete(policy, batch, report);

      assertThat(completion.release()).isEmpty();
      assertThat(completion.failures())
          .containsExactly(new Failure(2, "b", "z", null, GroupEffect.NONE));
    }
  }

  @Test
  void infinityNeverKills() {
    RetryPolicy policy = new RetryPolicy(Ordering.GROUP, 0, MIN, MAX);
    Completion completion =
        complete(
            policy, List.of(e(1, "a", 1_000)), DeliveryReport.builder().failed(1, "x").build());

    assertThat(completion.failures()).extracting(Failure::retryAfter).containsExactly(MAX);
  }
}
