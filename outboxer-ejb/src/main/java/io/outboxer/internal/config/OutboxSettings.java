package io.outboxer.internal.config;

import java.time.Duration;
import java.util.Map;

/**
 * One outbox's configuration, read once at startup from {@code outboxer.outbox.<name>.*} and
 * validated there.
 *
 * @param name the outbox name
 * @param ordering {@code ordering}: group (default), total or none
 * @param partitions {@code partitions}: default 1; always 1 with total ordering
 * @param maxAttempts {@code max-attempts}: {@code infinity} (stored as 0, the default) or the
 *     number of failed attempts after which a message is dead
 * @param backoffMin {@code backoff.min}: the first retry delay, default 1s
 * @param backoffMax {@code backoff.max}: the longest retry delay, default 60s
 * @param batchSize {@code batch-size}: messages per relay call and per transaction, default 100
 * @param serializeWrites {@code serialize-writes}: take a group lock before inserting (PostgreSQL)
 * @param relay {@code relay}: the relay's name (jms)
 * @param relaySettings every {@code relay.<relay>.*} key, with that prefix removed
 */
public record OutboxSettings(
    String name,
    Ordering ordering,
    int partitions,
    int maxAttempts,
    Duration backoffMin,
    Duration backoffMax,
    int batchSize,
    boolean serializeWrites,
    String relay,
    Map<String, String> relaySettings) {

  /** True when failed messages are retried forever. */
  public boolean retriesForever() {
    return maxAttempts == 0;
  }

  /** The full configuration key of one of this outbox's settings, for messages. */
  public String key(String suffix) {
    return OutboxerSettings.OUTBOX_PREFIX + name + "." + suffix;
  }
}
