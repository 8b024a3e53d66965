package io.outboxer.internal.rules;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A point in time on a monotonic clock ({@link System#nanoTime()} unless a test gives another). The
 * worker renews its lease by one and relays end their calls by another, so both judge time the same
 * way.
 */
public final class Deadline {

  private final LongSupplier clock;
  private final long atNanos;

  private Deadline(LongSupplier clock, long atNanos) {
    this.clock = clock;
    this.atNanos = atNanos;
  }

  /** The deadline {@code duration} from now on the system's monotonic clock. */
  public static Deadline in(Duration duration) {
    return in(duration, System::nanoTime);
  }

  /** The deadline {@code duration} from now on {@code clock}, which counts nanoseconds. */
  public static Deadline in(Duration duration, LongSupplier clock) {
    return new Deadline(clock, clock.getAsLong() + duration.toNanos());
  }

  /** True once the deadline is reached. */
  public boolean passed() {
    return clock.getAsLong() - atNanos >= 0;
  }

  /** The time left, zero once the deadline passed. */
  public Duration remaining() {
    long left = atNanos - clock.getAsLong();
    return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  /** The earlier of this deadline and {@code duration} from now. */
  public Deadline within(Duration duration) {
    return remaining().compareTo(duration) <= 0 ? this : in(duration, clock);
  }
}
