package io.outboxer.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the figures were measured on. */
final class Machine {

  private Machine() {}

  static Map<String, String> describe(LibertyServer server, Db db) throws Exception {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("date", Instant.now().toString());
    m.put("cpu", cpuModel());
    m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    m.put("memory", memory());
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put(
        "java",
        System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version"));
    m.put("liberty", server.version());
    m.put("postgresql", db.version());
    m.put("kafka", System.getProperty("bench.kafka.version", "unknown"));
    m.put("sqlite-jdbc", System.getProperty("bench.sqlite.version", "unknown"));
    m.put("loadAverageAtStart", Files.readString(Path.of("/proc/loadavg")).trim());
    return m;
  }

  private static String cpuModel() throws Exception {
    return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
        .filter(l -> l.startsWith("model name"))
        .map(l -> l.substring(l.indexOf(':') + 1).trim())
        .findFirst()
        .orElse("unknown");
  }

  private static String memory() throws Exception {
    return Files.readAllLines(Path.of("/proc/meminfo")).stream()
        .filter(l -> l.startsWith("MemTotal:"))
        .map(l -> Long.parseLong(l.replaceAll("\\D", "")) / 1024 + " MiB")
        .findFirst()
        .orElse("unknown");
  }
}
