package io.outboxer.it.setup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Adds to a failed test's message the threads of every running test server that stand in Outboxer's
 * code, the connection pool or a JDBC driver (from {@code jcmd Thread.print}, run in the test JVM
 * beside the servers): a test that times out because a thread holds the database's only connection,
 * or waits for ever on a broker, then says which thread and where, in the one place a CI run keeps,
 * the build's output. Registered for every test class by the JUnit Platform's extension
 * auto-detection (junit-platform.properties).
 */
public final class ServerThreadsOnFailure implements TestExecutionExceptionHandler {

  private static final List<String> RELEVANT =
      List.of(
          "io.outboxer.",
          "com.ibm.ejs.j2c.",
          "org.sqlite.",
          "org.postgresql.core.",
          "org.postgresql.jdbc.");
  private static final int MAX_THREADS = 16;
  private static final int TOP_FRAMES = 6;
  private static final int MAX_RELEVANT_FRAMES = 12;

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    if (failure instanceof TestAbortedException) {
      throw failure; // an assumption that did not hold: skipped, not failed
    }
    String threads = serverThreads();
    if (threads.isEmpty()) {
      throw failure;
    }
    AssertionError explained =
        new AssertionError(
            (failure instanceof AssertionError ? failure.getMessage() : failure.toString())
                + "\n\n"
                + threads,
            failure);
    explained.setStackTrace(failure.getStackTrace());
    throw explained;
  }

  /**
   * The relevant threads of each running server of the test installation (the Arquillian server and
   * those the tests start with {@code bin/server}, each a {@code ws-server.jar} process); empty
   * outside the integration tests' executions, which name the installation.
   */
  static String serverThreads() {
    String wlp = System.getProperty("outboxer.it.wlp");
    if (wlp == null) {
      return "";
    }
    String jar = Path.of(wlp, "bin/tools/ws-server.jar").toAbsolutePath().normalize().toString();
    StringBuilder out = new StringBuilder();
    ProcessHandle.allProcesses()
        .forEach(
            p -> {
              String[] args = p.info().arguments().orElse(new String[0]);
              for (int i = 0; i + 1 < args.length; i++) {
                if (args[i].equals(jar)) {
                  out.append(describe(args[i + 1], p.pid()));
                }
              }
            });
    return out.length() == 0 ? "(no test server was running at the failure)" : out.toString();
  }

  private static String describe(String server, long pid) {
    StringBuilder out = new StringBuilder();
    out.append("Threads of test server ")
        .append(server)
        .append(" (pid ")
        .append(pid)
        .append(") in Outboxer, the connection pool or a JDBC driver:\n");
    List<List<String>> threads;
    try {
      threads = relevant(threadDump(pid));
    } catch (IOException e) {
      return out.append("  not read: ").append(e).append('\n').toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return out.append("  not read: interrupted\n").toString();
    }
    if (threads.isEmpty()) {
      out.append("  none\n");
    }
    for (List<String> thread : threads.subList(0, Math.min(MAX_THREADS, threads.size()))) {
      out.append("  ").append(thread.get(0)).append('\n');
      frames(thread).forEach(line -> out.append("    ").append(line).append('\n'));
    }
    if (threads.size() > MAX_THREADS) {
      out.append("  and ").append(threads.size() - MAX_THREADS).append(" more\n");
    }
    return out.toString();
  }

  /**
   * What to show of {@code thread} (its header line, then its state and frames): its state, its top
   * frames, and below them the frames in a relevant package, with a count of those left out.
   */
  static List<String> frames(List<String> thread) {
    List<String> shown = new ArrayList<>();
    int skipped = 0;
    int relevant = 0;
    for (String line : thread.subList(1, thread.size())) {
      String frame = line.strip();
      if (shown.size() <= TOP_FRAMES || isRelevant(frame) && relevant++ < MAX_RELEVANT_FRAMES) {
        if (skipped > 0) {
          shown.add("(" + skipped + " more)");
          skipped = 0;
        }
        shown.add(frame);
      } else {
        skipped++;
      }
    }
    if (skipped > 0) {
      shown.add("(" + skipped + " more)");
    }
    return shown;
  }

  /**
   * A frame ({@code at …}) in a relevant package; other lines (a compiler thread's task) are not.
   */
  private static boolean isRelevant(String line) {
    String frame = line.strip();
    return frame.startsWith("at ") && RELEVANT.stream().anyMatch(frame::contains);
  }

  /** The dump {@code jcmd} prints, or an IOException when it did not end within 30 s. */
  private static String threadDump(long pid) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Path output = Files.createTempFile("outboxer-threads-", ".txt");
    try {
      Process p =
          new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print")
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("jcmd did not end within 30 s");
      }
      return Files.readString(output, StandardCharsets.UTF_8);
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /**
   * The threads of {@code dump} (each as its header line, then its state and frames) with a frame
   * in a relevant package.
   */
  static List<List<String>> relevant(String dump) {
    List<List<String>> threads = new ArrayList<>();
    List<String> current = null;
    for (String line : dump.split("\n")) {
      if (line.startsWith("\"")) {
        current = new ArrayList<>();
        threads.add(current);
        current.add(line.replaceAll(" (os_prio|cpu|elapsed|tid|nid)=\\S+", ""));
      } else if (current != null && !line.isBlank()) {
        current.add(line);
      }
    }
    return threads.stream()
        .filter(t -> t.stream().anyMatch(ServerThreadsOnFailure::isRelevant))
        .toList();
  }
}
