package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private static final Duration MIN = Duration.ofSeconds(1);
  private static final Duration MAX = Duration.ofSeconds(60);

  @Test
  void doublesFromMinUpToMax() {
    assertThat(Backoff.after(1, MIN, MAX)).isEqualTo(Duration.ofSeconds(1));
    assertThat(Backoff.after(2, MIN, MAX)).isEqualTo(Duration.ofSeconds(2));
    assertThat(Backoff.after(3, MIN, MAX)).isEqualTo(Duration.ofSeconds(4));
    assertThat(Backoff.after(6, MIN, MAX)).isEqualTo(Duration.ofSeconds(32));
    assertThat(Backoff.after(7, MIN, MAX)).isEqualTo(MAX);
    assertThat(Backoff.after(1_000_000, MIN, MAX)).isEqualTo(MAX);
  }

  @Test
  void refusesAttemptCountsBelowOne() {
    assertThatThrownBy(() -> Backoff.after(0, MIN, MAX))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("failures must be at least 1, was 0");
  }

  @Property
  void isMinTimesTwoToTheNMinusOneCappedAtMax(
      @ForAll @IntRange(min = 1, max = 200) int failures,
      @ForAll @IntRange(min = 1, max = 10_000) int minMillis,
      @ForAll @IntRange(min = 0, max = 1_000_000) int extraMillis) {
    Duration min = Duration.ofMillis(minMillis);
    Duration max = Duration.ofMillis((long) minMillis + extraMillis);
    double expected = Math.min(max.toMillis(), minMillis * Math.pow(2, failures - 1));
    assertThat(Backoff.after(failures, min, max).toMillis()).isEqualTo((long) expected);
  }
}
