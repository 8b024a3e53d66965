package io.outboxer.internal.config;

import io.outboxer.OutboxException;
import io.outboxer.internal.rules.LeaseTerms;
import io.outboxer.internal.rules.Ordering;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * Outboxer's whole configuration: the global keys under {@code outboxer.*} and every outbox found
 * under {@code outboxer.outbox.<name>.*}. Read once at startup; a bad value is an {@link
 * OutboxException} that names the key and the value.
 *
 * @param pollInterval {@code outboxer.poll-interval}: how often idle workers look for due rows when
 *     nothing woke them, default 1s
 * @param createSchema {@code outboxer.schema.create}: create missing tables at startup, default
 *     true
 * @param deliveryEnabled {@code outboxer.delivery.enabled}: run workers on this server, default
 *     true; false makes a server that publishes but never delivers
 * @param leaseTtl {@code outboxer.lease.ttl}: how long a partition's lease lasts without renewal,
 *     default 30s; a killed server's partitions move to another within about this time
 * @param nodeId {@code outboxer.node-id}: this server's name in lease rows, default the Liberty
 *     server name and host, made unique per start
 * @param outboxes the configured outboxes by name: those named under {@code
 *     outboxer.outbox.<name>.*}, and those {@code outboxer.outboxes} lists (comma-separated), whose
 *     keys can then come from environment variables alone ({@code OUTBOXER_OUTBOX_ORDERS_RELAY})
 * @param warnings what the configuration has that Outboxer does not read (a misspelled key, the
 *     settings of a relay the outbox does not use), each naming the key
 */
public record EngineConfig(
    Duration pollInterval,
    boolean createSchema,
    boolean deliveryEnabled,
    Duration leaseTtl,
    String nodeId,
    Map<String, OutboxConfig> outboxes,
    List<String> warnings) {

  static final String OUTBOX_PREFIX = "outboxer.outbox.";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");

  /** Reads and validates everything from {@code config}. */
  public static EngineConfig read(Config config) {
    ConfigReader reader = new ConfigReader(config);
    Map<String, OutboxConfig> outboxes = new LinkedHashMap<>();
    for (String name : outboxNames(config)) {
      outboxes.put(name, readOutbox(reader, config, name));
    }
    return new EngineConfig(
        reader.duration("outboxer.poll-interval", Duration.ofSeconds(1)),
        reader.bool("outboxer.schema.create", true),
        reader.bool("outboxer.delivery.enabled", true),
        reader.duration("outboxer.lease.ttl", Duration.ofSeconds(30)),
        reader.string("outboxer.node-id").orElseGet(EngineConfig::defaultNodeId)
            + "/"
            + UUID.randomUUID().toString().substring(0, 8),
        Collections.unmodifiableMap(outboxes),
        ConfigKeys.unread(config.getPropertyNames(), outboxes));
  }

  private static String defaultNodeId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "unknown-host";
    }
    return System.getProperty("wlp.server.name", "server") + "@" + host;
  }

  private static TreeSet<String> outboxNames(Config config) {
    TreeSet<String> names = new TreeSet<>();
    for (String name :
        config.getOptionalValue("outboxer.outboxes", String.class).orElse("").split(",")) {
      if (!name.isBlank()) {
        names.add(validName(name.trim(), "outboxer.outboxes"));
      }
    }
    for (String key : config.getPropertyNames()) {
      if (key.startsWith(OUTBOX_PREFIX)) {
        String rest = key.substring(OUTBOX_PREFIX.length());
        int dot = rest.indexOf('.');
        String name = dot < 0 ? rest : rest.substring(0, dot);
        names.add(validName(name, key));
      }
    }
    return names;
  }

  private static String validName(String name, String key) {
    if (!NAME.matcher(name).matches()) {
      throw new OutboxException(
          "OUTBOXER-1003 invalid outbox name '"
              + name
              + "' in configuration key "
              + key
              + ": use 1 to 100 letters, digits, '-' or '_'");
    }
    return name;
  }

  private static OutboxConfig readOutbox(ConfigReader reader, Config config, String name) {
    String p = OUTBOX_PREFIX + name + ".";
    Ordering ordering =
        reader.parse(
            p + "ordering",
            Ordering.GROUP,
            v -> {
              try {
                return Ordering.valueOf(v.toUpperCase(Locale.ROOT));
              } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("expected group, total or none");
              }
            });
    int partitions = reader.integer(p + "partitions", 1, 1, 1024);
    if (ordering == Ordering.TOTAL && partitions != 1) {
      throw ConfigReader.invalid(
          p + "partitions",
          String.valueOf(partitions),
          "total ordering keeps the whole outbox in one partition; remove the key or set it to 1");
    }
    int maxAttempts =
        reader.parse(
            p + "max-attempts",
            0,
            v -> {
              if (v.equalsIgnoreCase("infinity")) {
                return 0;
              }
              try {
                int n = Integer.parseInt(v);
                if (n >= 1) {
                  return n;
                }
              } catch (NumberFormatException e) {
                // reported below
              }
              throw new IllegalArgumentException(
                  "expected infinity or a whole number of at least 1");
            });
    Duration backoffMin = reader.duration(p + "backoff.min", Duration.ofSeconds(1));
    Duration backoffMax = reader.duration(p + "backoff.max", Duration.ofSeconds(60));
    if (backoffMax.compareTo(backoffMin) < 0) {
      throw ConfigReader.invalid(
          p + "backoff.max",
          reader.string(p + "backoff.max").orElse(""),
          "must not be shorter than " + p + "backoff.min (" + backoffMin.toMillis() + "ms)");
    }
    int batchSize = reader.integer(p + "batch-size", 2000, 1, 10_000);
    boolean serializeWrites = reader.bool(p + "serialize-writes", false);
    boolean waitForWriters = reader.bool(p + "wait-for-writers", true);
    String relay =
        reader
            .required(
                p + "relay",
                "name the relay that delivers this outbox's messages (jms, kafka, sqs or a RelayProvider's name)")
            .toLowerCase(Locale.ROOT);
    Map<String, String> relaySettings = new TreeMap<>();
    String relayPrefix = p + "relay." + relay + ".";
    String environmentPrefix = ConfigKeys.environmentName(relayPrefix);
    for (String key : config.getPropertyNames()) {
      // The dotted spelling wins over an environment variable's, whichever comes first.
      String setting = ConfigKeys.relaySettingOfEnvironmentName(key, environmentPrefix);
      if (key.startsWith(relayPrefix)) {
        reader
            .string(key)
            .ifPresent(v -> relaySettings.put(key.substring(relayPrefix.length()), v));
      } else if (setting != null) {
        reader.string(key).ifPresent(v -> relaySettings.putIfAbsent(setting, v));
      }
    }
    return new OutboxConfig(
        name,
        ordering,
        partitions,
        maxAttempts,
        backoffMin,
        backoffMax,
        batchSize,
        serializeWrites,
        waitForWriters,
        relay,
        Collections.unmodifiableMap(relaySettings));
  }

  /** The arithmetic of the partitions' leases. */
  public LeaseTerms leaseTerms() {
    return new LeaseTerms(leaseTtl);
  }

  /**
   * The settings of outbox {@code name}.
   *
   * @throws OutboxException OUTBOXER-2005 when no such outbox is configured
   */
  public OutboxConfig outbox(String name) {
    OutboxConfig settings = outboxes.get(name);
    if (settings == null) {
      throw new OutboxException(
          "OUTBOXER-2005 unknown outbox '"
              + name
              + "': configure it with "
              + OUTBOX_PREFIX
              + name
              + ".relay (configured outboxes: "
              + outboxes.keySet()
              + ")");
    }
    return settings;
  }
}
