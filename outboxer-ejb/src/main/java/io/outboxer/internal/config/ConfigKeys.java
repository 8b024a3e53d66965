package io.outboxer.internal.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * The configuration keys Outboxer reads, what it says of keys under {@code outboxer.*} that it does
 * not read, and how relay settings are found among environment variables' names.
 */
final class ConfigKeys {

  /** The global keys; {@code outboxer.database} is the server configuration's database switch. */
  static final List<String> GLOBAL =
      List.of(
          "outboxer.poll-interval",
          "outboxer.schema.create",
          "outboxer.delivery.enabled",
          "outboxer.lease.ttl",
          "outboxer.node-id",
          "outboxer.outboxes",
          "outboxer.database");

  /**
   * Keys under {@code outboxer.} that the shipped {@code server.xml} reads itself (its user
   * registry for the admin API) and that MicroProfile Config shows as its variables: not
   * Outboxer's, and no typo.
   */
  static final List<String> SERVER_XML = List.of("outboxer.admin.user", "outboxer.admin.password");

  /**
   * The keys outside any outbox that are known: a misspelled one is likely meant as one of them.
   */
  private static final List<String> KNOWN =
      Stream.concat(GLOBAL.stream(), SERVER_XML.stream()).toList();

  /** The keys of one outbox, after {@code outboxer.outbox.<name>.}; relay settings aside. */
  static final List<String> OUTBOX =
      List.of(
          "relay",
          "ordering",
          "partitions",
          "max-attempts",
          "backoff.min",
          "backoff.max",
          "batch-size",
          "serialize-writes",
          "wait-for-writers");

  /**
   * The built-in relays' settings that have hyphens: an environment variable's name writes them
   * with underscores, as it writes dots, so these are recognized by name.
   */
  private static final List<String> HYPHENATED =
      List.of(
          "queue-url",
          "access-key-id",
          "secret-access-key",
          "max-request-bytes",
          "transactional-id-prefix",
          "connection-factory");

  private static final LevenshteinDistance DISTANCE = LevenshteinDistance.getDefaultInstance();

  private ConfigKeys() {}

  /**
   * A warning for each of {@code names} under {@code outboxer.} that no setting reads, naming the
   * closest key that one does. Relay settings are any keys under the configured relay's {@code
   * relay.<relay>.}; those of another relay are not read, and say so.
   */
  static List<String> unread(Iterable<String> names, Map<String, OutboxConfig> outboxes) {
    List<String> warnings = new ArrayList<>();
    for (String name : names) {
      if (!name.startsWith("outboxer.") || KNOWN.contains(name)) {
        continue;
      }
      List<String> candidates = KNOWN;
      if (name.startsWith(EngineConfig.OUTBOX_PREFIX)) {
        String rest = name.substring(EngineConfig.OUTBOX_PREFIX.length());
        int dot = rest.indexOf('.');
        OutboxConfig outbox = outboxes.get(dot < 0 ? rest : rest.substring(0, dot));
        String key = dot < 0 ? "" : rest.substring(dot + 1);
        if (outbox == null || OUTBOX.contains(key)) {
          continue;
        }
        if (key.startsWith("relay." + outbox.relay() + ".")) {
          continue;
        }
        if (key.startsWith("relay.")) {
          warnings.add(
              "OUTBOXER-1010 configuration key "
                  + name
                  + " is not read: outbox '"
                  + outbox.name()
                  + "' uses "
                  + outbox.key("relay")
                  + "="
                  + outbox.relay()
                  + ", whose settings are "
                  + outbox.key("relay." + outbox.relay() + ".*"));
          continue;
        }
        candidates = OUTBOX.stream().map(outbox::key).toList();
      }
      String closest = closest(name, candidates);
      warnings.add(
          "OUTBOXER-1009 unknown configuration key "
              + name
              + (closest == null ? "" : ": did you mean " + closest + "?"));
    }
    return warnings;
  }

  /** The candidate nearest to {@code key}, or null when none is near enough to be a typo. */
  static String closest(String key, List<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int d = DISTANCE.apply(key, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return bestDistance <= Math.max(3, key.length() / 4) ? best : null;
  }

  /**
   * The relay setting an environment variable's name holds, when it starts with {@code prefix} (say
   * {@code OUTBOXER_OUTBOX_ORDERS_RELAY_KAFKA_}): the rest in lower case, underscores read as dots
   * ({@code BOOTSTRAP_SERVERS} is {@code bootstrap.servers}) or, for the hyphenated settings, as
   * hyphens ({@code QUEUE_URL} is {@code queue-url}); else null.
   */
  static String relaySettingOfEnvironmentName(String name, String prefix) {
    if (!name.startsWith(prefix) || name.length() == prefix.length()) {
      return null;
    }
    String setting = name.substring(prefix.length()).toLowerCase(Locale.ROOT);
    String hyphenated = setting.replace('_', '-');
    return HYPHENATED.contains(hyphenated) ? hyphenated : setting.replace('_', '.');
  }

  /** How MicroProfile Config's environment source spells {@code key}: {@code A_B_C}. */
  static String environmentName(String key) {
    return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
  }
}
