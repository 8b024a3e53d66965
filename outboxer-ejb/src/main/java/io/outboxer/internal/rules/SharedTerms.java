package io.outboxer.internal.rules;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The settings of an outbox that every server sharing its database must agree on, recorded in the
 * database beside the outbox's name ({@code outboxer_outbox}): the partition count, by which
 * publishers hash groups to partitions, and the settings by which publishers write and workers read
 * ({@code ordering}, {@code wait-for-writers}, {@code serialize-writes}). A server that starts with
 * other terms than those recorded changes the record only where no other server delivers the
 * outbox; otherwise its outbox is refused, since one side would write or read by rules the other
 * does not keep, and messages would be delivered out of order without an error.
 *
 * @param partitions {@code partitions}
 * @param settings the other shared settings, by their key under {@code outboxer.outbox.<name>.}, in
 *     a fixed order
 */
public record SharedTerms(int partitions, Map<String, String> settings) {

  /** The keys of the shared settings, in the order they are recorded and compared. */
  private static final List<String> KEYS =
      List.of("ordering", "wait-for-writers", "serialize-writes");

  /** The terms of an outbox configured with these settings. */
  public static SharedTerms of(
      int partitions, Ordering ordering, boolean waitForWriters, boolean serializeWrites) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("ordering", ordering.name().toLowerCase(Locale.ROOT));
    settings.put("wait-for-writers", Boolean.toString(waitForWriters));
    settings.put("serialize-writes", Boolean.toString(serializeWrites));
    return new SharedTerms(partitions, Map.copyOf(settings));
  }

  /**
   * The settings as the database records them: {@code key=value} pairs joined by commas, in the
   * order of {@link #of}.
   */
  public String settingsText() {
    List<String> pairs = new ArrayList<>();
    for (String key : KEYS) {
      pairs.add(key + "=" + settings.get(key));
    }
    return String.join(",", pairs);
  }

  /** The settings recorded as {@code text} by {@link #settingsText}. */
  public static Map<String, String> parseSettings(String text) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String pair : text.split(",")) {
      int eq = pair.indexOf('=');
      settings.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return settings;
  }

  /** What a starting server does with the recorded terms. */
  public sealed interface Verdict {}

  /** The recorded terms are this server's: nothing to write. */
  public record Keep() implements Verdict {}

  /** The record takes this server's terms: no other server delivers the outbox, no row is left. */
  public record Record() implements Verdict {}

  /** The outbox is refused on this server, for the reason given. */
  public record Refuse(String reason) implements Verdict {}

  /**
   * What a server whose terms are these does at start, given the record.
   *
   * @param outbox the outbox's name
   * @param recordedPartitions the partition count recorded
   * @param recordedSettings the settings recorded, or null where an earlier version recorded none
   * @param otherServers how many other servers delivered the outbox within the lease's ttl
   * @param pendingRows how many rows the outbox holds (asked only when the partition count changed)
   * @param delivers whether this server delivers; one that only publishes never changes the
   *     settings recorded
   */
  public Verdict judge(
      String outbox,
      int recordedPartitions,
      String recordedSettings,
      int otherServers,
      LongSupplier pendingRows,
      boolean delivers) {
    List<String> differences = new ArrayList<>();
    if (recordedPartitions != partitions) {
      differences.add(difference(outbox, "partitions", partitions, recordedPartitions));
    }
    boolean settingsDiffer = false;
    if (recordedSettings != null) {
      Map<String, String> recorded = parseSettings(recordedSettings);
      for (String key : KEYS) {
        String was = recorded.get(key);
        if (!settings.get(key).equals(was)) {
          settingsDiffer = true;
          differences.add(difference(outbox, key, settings.get(key), was));
        }
      }
    }
    if (differences.isEmpty()) {
      return recordedSettings == null ? new Record() : new Keep();
    }
    if (otherServers > 0) {
      return new Refuse(
          "OUTBOXER-1104 outbox '"
              + outbox
              + "' is delivered by "
              + otherServers
              + " other server(s) heard from within the lease ttl, whose terms differ from this"
              + " server's: "
              + String.join("; ", differences)
              + ". Start this server with their settings, or stop them all first (a server"
              + " stopped by a kill is heard from for one lease ttl after it)");
    }
    if (settingsDiffer && !delivers) {
      return new Refuse(
          "OUTBOXER-1104 outbox '"
              + outbox
              + "' was last delivered with other terms than this server's, which only publishes"
              + " (outboxer.delivery.enabled=false) and so never changes them: "
              + String.join("; ", differences));
    }
    if (recordedPartitions != partitions) {
      long rows = pendingRows.getAsLong();
      if (rows > 0) {
        return new Refuse(
            "OUTBOXER-1101 outbox '"
                + outbox
                + "' holds "
                + rows
                + " messages hashed over "
                + recordedPartitions
                + " partitions, but outboxer.outbox."
                + outbox
                + ".partitions is now "
                + partitions
                + ": its workers do not start until the change is undone or the outbox is drained"
                + " (pending and dead messages delivered or discarded)");
      }
    }
    return new Record();
  }

  private static String difference(String outbox, String key, Object here, Object recorded) {
    return "outboxer.outbox."
        + outbox
        + "."
        + key
        + " is "
        + here
        + " here, "
        + recorded
        + " there";
  }
}
