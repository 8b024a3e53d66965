package io.outboxer.internal.rules;

import java.time.Duration;

/** Retry delays: {@code min · 2^(n−1)} after the n-th failed attempt, capped at {@code max}. */
public final class Backoff {

  private Backoff() {}

  /** The delay before the next attempt of a message that has now failed {@code failures} times. */
  public static Duration after(int failures, Duration min, Duration max) {
    if (failures < 1) {
      throw new IllegalArgumentException("failures must be at least 1, was " + failures);
    }
    long minMillis = min.toMillis();
    long maxMillis = max.toMillis();
    int shift = failures - 1;
    if (shift >= 62 || minMillis > (maxMillis >> shift)) {
      return max;
    }
    return Duration.ofMillis(Math.min(maxMillis, minMillis << shift));
  }
}
