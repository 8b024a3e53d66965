package io.outboxer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * CPU time by component from {@code /proc}: each component is a set of processes (a JVM, or the
 * PostgreSQL backends of the bench's database), and "others" is what the rest of the machine used
 * meanwhile: other sessions' test suites on a shared machine show up there.
 */
final class CpuMeter {

  /** Linux's clock ticks per second for {@code /proc} CPU times. */
  private static final double TICKS = 100.0;

  /** CPU ticks per process of each component, the machine's busy ticks, and when. */
  record Sample(Map<String, Map<Long, Long>> ticks, long machineBusy, long nanos) {}

  private final Map<String, Callable<List<Long>>> components;

  CpuMeter(Map<String, Callable<List<Long>>> components) {
    this.components = components;
  }

  Sample sample() throws Exception {
    Map<String, Map<Long, Long>> ticks = new LinkedHashMap<>();
    for (Map.Entry<String, Callable<List<Long>>> c : components.entrySet()) {
      Map<Long, Long> byPid = new HashMap<>();
      for (long pid : c.getValue().call()) {
        byPid.put(pid, processTicks(pid));
      }
      ticks.put(c.getKey(), byPid);
    }
    return new Sample(ticks, machineBusy(), System.nanoTime());
  }

  /** Average cores used by each component between {@code a} and {@code b}, and by the others. */
  static Map<String, Double> cores(Sample a, Sample b) {
    double seconds = (b.nanos() - a.nanos()) / 1e9;
    Map<String, Double> cores = new LinkedHashMap<>();
    long ours = 0;
    for (Map.Entry<String, Map<Long, Long>> c : b.ticks().entrySet()) {
      Map<Long, Long> before = a.ticks().getOrDefault(c.getKey(), Map.of());
      long used = 0;
      for (Map.Entry<Long, Long> p : c.getValue().entrySet()) {
        used += p.getValue() - before.getOrDefault(p.getKey(), 0L);
      }
      ours += used;
      cores.put(c.getKey(), round(used / TICKS / seconds));
    }
    cores.put(
        "others", round(Math.max(0, b.machineBusy() - a.machineBusy() - ours) / TICKS / seconds));
    return cores;
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static long processTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // Fields after the command name (which may hold spaces) in parentheses; utime and stime are
      // the 14th and 15th fields of the line.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException e) {
      return 0; // the process ended: its time is lost to the measurement
    }
  }

  private static long machineBusy() throws IOException {
    String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    // cpu user nice system idle iowait irq softirq steal
    return Long.parseLong(f[1])
        + Long.parseLong(f[2])
        + Long.parseLong(f[3])
        + Long.parseLong(f[6])
        + Long.parseLong(f[7])
        + Long.parseLong(f[8]);
  }
}
