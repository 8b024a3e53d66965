package io.outboxer.internal.config;

import io.outboxer.OutboxException;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.RetryPolicy;
import io.outboxer.internal.rules.SharedTerms;
import java.time.Duration;
import java.util.List;
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
 * @param batchSize {@code batch-size}: messages per relay call and per transaction, default 2000
 * @param serializeWrites {@code serialize-writes}: take a group lock before inserting (PostgreSQL)
 * @param waitForWriters {@code wait-for-writers}: workers hand over nothing that a transaction
 *     still in flight could commit a lower id behind (PostgreSQL, ADR 0010), default true
 * @param relay {@code relay}: the relay's name (jms, kafka, sqs or a RelayProvider's)
 * @param relaySettings every {@code relay.<relay>.*} key, with that prefix removed
 */
public record OutboxConfig(
    String name,
    Ordering ordering,
    int partitions,
    int maxAttempts,
    Duration backoffMin,
    Duration backoffMax,
    int batchSize,
    boolean serializeWrites,
    boolean waitForWriters,
    String relay,
    Map<String, String> relaySettings) {

  /**
   * True when publishers announce their transactions and workers wait for them (ADR 0010): asked
   * for, and needed, which it is not without ordering nor when writers queue behind the group lock
   * ({@code serialize-writes}), whose id order already is commit order.
   */
  public boolean waitsForWriters() {
    return waitForWriters && !serializeWrites && ordering != Ordering.NONE;
  }

  /** The settings that every server sharing the database must give this outbox alike. */
  public SharedTerms sharedTerms() {
    return SharedTerms.of(partitions, ordering, waitForWriters, serializeWrites);
  }

  /**
   * Why the outbox cannot start where the database does not give what commit-safe order needs (ADR
   * 0010), or null when it can: it waits for writers and {@code problems} are what the database
   * lacks.
   */
  public String commitOrderRefusal(List<String> problems) {
    if (!waitsForWriters() || problems.isEmpty()) {
      return null;
    }
    return "OUTBOXER-1103 outbox '"
        + name
        + "' keeps each group's order without serializing its writers ("
        + key("wait-for-writers")
        + "=true), which needs what this database does not give: "
        + String.join("; ", problems)
        + ". Its workers do not start and publishing to it is refused until that is fixed, or the"
        + " outbox sets serialize-writes=true or wait-for-writers=false";
  }

  /** What the outbox does with a failed message. */
  public RetryPolicy retryPolicy() {
    return new RetryPolicy(ordering, maxAttempts, backoffMin, backoffMax);
  }

  /** The full configuration key of one of this outbox's settings, for messages. */
  public String key(String suffix) {
    return EngineConfig.OUTBOX_PREFIX + name + "." + suffix;
  }

  /** The full key of relay setting {@code setting}: {@code <outbox>.relay.<relay>.<setting>}. */
  public String relayKey(String setting) {
    return key("relay." + relay + "." + setting);
  }

  /**
   * The value of relay setting {@code setting}.
   *
   * @throws OutboxException naming the key, with {@code why} it is needed, when it is not set
   */
  public String requiredRelaySetting(String setting, String why) {
    String value = relaySettings.get(setting);
    if (value == null) {
      throw missingRelaySetting(setting, why);
    }
    return value;
  }

  /** The refusal for relay setting {@code setting} missing, naming its key. */
  public OutboxException missingRelaySetting(String setting, String why) {
    return new OutboxException(
        "OUTBOXER-1002 missing configuration " + relayKey(setting) + ": " + why);
  }

  /** The refusal for relay setting {@code setting}'s value, naming its key and value. */
  public OutboxException invalidRelaySetting(String setting, String expected) {
    return ConfigReader.invalid(relayKey(setting), relaySettings.get(setting), expected);
  }
}
