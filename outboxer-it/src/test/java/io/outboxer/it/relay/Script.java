package io.outboxer.it.relay;

import io.outboxer.spi.Envelope;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Which messages the scripted relay of each outbox fails (by default none), and whether its next
 * call hangs.
 */
public final class Script {

  private static final Map<String, Predicate<Envelope>> FAILING = new ConcurrentHashMap<>();
  private static final Map<String, Duration> HANGING = new ConcurrentHashMap<>();

  private Script() {}

  public static void fail(String outbox, Predicate<Envelope> which) {
    FAILING.put(outbox, which);
  }

  public static void failNothing(String outbox) {
    FAILING.remove(outbox);
  }

  /**
   * Makes the next call of the outbox's relay take {@code time} before it answers, whatever time
   * the engine gave it, as a custom relay stuck on its destination would.
   */
  public static void hangNextCall(String outbox, Duration time) {
    HANGING.put(outbox, time);
  }

  /** How long the relay's call hangs, once; zero when it does not. */
  static Duration takeHang(String outbox) {
    Duration hang = HANGING.remove(outbox);
    return hang == null ? Duration.ZERO : hang;
  }

  static Predicate<Envelope> failing(String outbox) {
    return FAILING.getOrDefault(outbox, e -> false);
  }
}
