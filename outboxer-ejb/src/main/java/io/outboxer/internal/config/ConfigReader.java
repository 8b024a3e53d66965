package io.outboxer.internal.config;

import io.outboxer.OutboxException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * Reads typed values from MicroProfile Config. Every failure is an {@link OutboxException} whose
 * message names the key, the value and what was expected, so that a bad value fails deployment with
 * an error an operator can act on.
 */
final class ConfigReader {

  private final Config config;

  ConfigReader(Config config) {
    this.config = config;
  }

  Optional<String> string(String key) {
    return config.getOptionalValue(key, String.class).map(String::trim).filter(s -> !s.isEmpty());
  }

  String required(String key, String why) {
    return string(key)
        .orElseThrow(
            () -> new OutboxException("OUTBOXER-1002 missing configuration " + key + ": " + why));
  }

  int integer(String key, int defaultValue, int min, int max) {
    return parse(
        key,
        defaultValue,
        v -> {
          String expected = "expected a whole number from " + min + " to " + max;
          int n;
          try {
            n = Integer.parseInt(v);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException(expected);
          }
          if (n < min || n > max) {
            throw new IllegalArgumentException(expected);
          }
          return n;
        });
  }

  boolean bool(String key, boolean defaultValue) {
    return parse(
        key,
        defaultValue,
        v -> {
          if (v.equalsIgnoreCase("true")) {
            return true;
          }
          if (v.equalsIgnoreCase("false")) {
            return false;
          }
          throw new IllegalArgumentException("expected true or false");
        });
  }

  Duration duration(String key, Duration defaultValue) {
    return parse(
        key,
        defaultValue,
        v -> {
          Duration d = Durations.parse(v);
          if (d.isZero()) {
            throw new IllegalArgumentException("expected a duration above zero");
          }
          return d;
        });
  }

  <T> T parse(String key, T defaultValue, Function<String, T> parser) {
    Optional<String> raw = string(key);
    if (raw.isEmpty()) {
      return defaultValue;
    }
    try {
      return parser.apply(raw.get());
    } catch (IllegalArgumentException e) {
      throw invalid(key, raw.get(), e.getMessage());
    }
  }

  static OutboxException invalid(String key, String value, String expected) {
    return new OutboxException(
        "OUTBOXER-1001 invalid configuration " + key + "=" + value + ": " + expected);
  }
}
