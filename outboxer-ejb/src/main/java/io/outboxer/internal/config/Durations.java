package io.outboxer.internal.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses configuration durations, which always carry their unit: {@code 500ms}, {@code 1s}. */
public final class Durations {

  private static final Pattern FORMAT = Pattern.compile("(\\d{1,12})(ms|s|m|h)");

  private Durations() {}

  /**
   * Parses {@code value} as a duration with a unit of {@code ms}, {@code s}, {@code m} or {@code
   * h}.
   *
   * @throws IllegalArgumentException naming the accepted format when {@code value} is not one
   */
  public static Duration parse(String value) {
    Matcher m = FORMAT.matcher(value.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "expected a whole number with a unit of ms, s, m or h, such as 500ms or 30s");
    }
    long amount = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      default -> Duration.ofHours(amount);
    };
  }
}
