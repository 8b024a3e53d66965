package io.outboxer.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.setup.DemoClient;
import io.outboxer.it.setup.LibertyServer;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The SQLite stall's reproduction (ADR 0018), not part of the test command: starts and stops the
 * demo server on SQLite again and again, each time under publishing load with dozens of idle
 * outboxes' workers polling, and counts the starts after which messages were no longer delivered.
 * Or, with {@code -Dstall.soak=30m}, one start under publishing load for that long, after which
 * every message must have arrived once. Run by the profile {@code sqlite-stall}
 * (docs/operations.md); fails when one start stalled, naming it, with the server's threads and log
 * kept in {@code target/sqlite-stall/}.
 */
class SqliteStallLoop {

  private static final int STARTS = Integer.getInteger("stall.starts", 200);
  private static final Duration SOAK =
      Duration.parse("PT" + System.getProperty("stall.soak", "0s"));
  private static final Duration PUBLISHING = Duration.ofSeconds(5);
  private static final Duration DELIVERY = Duration.ofSeconds(60);
  private static final int PUBLISHERS = 6;
  private static final int IDLE_OUTBOXES = 16;
  private static final int BUSY_THREADS = Integer.getInteger("stall.busy", 2);

  /**
   * The soak's publishing rate, messages per second over all publishers: below what the demo's
   * queue listener consumes, so that the queue does not fill the messaging engine's store (at full
   * speed, 700,000 messages in 30 minutes did, and the relay met a full destination) and a stall is
   * told from a backlog. The loop's starts publish at full speed.
   */
  private static final int SOAK_RATE = Integer.getInteger("stall.rate", 60);

  private final LibertyServer server =
      new LibertyServer(
          System.getProperty("outboxer.it.server"), System.getProperty("outboxer.it.port"));
  private final DemoClient demo = new DemoClient(server);
  private final Path evidence = Path.of("target/sqlite-stall");

  @Test
  void everyStartDeliversWhatWasPublished() throws Exception {
    Files.createDirectories(evidence);
    server.override("sqlite-stall.xml", idleOutboxes());
    AtomicBoolean done = new AtomicBoolean();
    List<Thread> busy = new ArrayList<>();
    for (int i = 0; i < BUSY_THREADS; i++) {
      Thread spin = new Thread(() -> spin(done), "busy-" + i);
      spin.setDaemon(true);
      spin.start();
      busy.add(spin);
    }
    List<String> stalls = new ArrayList<>();
    int starts = SOAK.isZero() ? STARTS : 1;
    Duration publishing = SOAK.isZero() ? PUBLISHING : SOAK;
    try {
      for (int start = 1; start <= starts; start++) {
        String stall = startPublishStop(start, publishing);
        if (stall != null) {
          stalls.add("start " + start + ": " + stall);
        }
        System.out.printf(
            "sqlite-stall: start %d of %d, %s; stalled so far: %d%n",
            start, starts, stall == null ? "delivered" : "STALLED (" + stall + ")", stalls.size());
      }
    } finally {
      done.set(true);
      server.removeOverride("sqlite-stall.xml");
    }
    assertThat(stalls).as("starts after which messages were no longer delivered").isEmpty();
  }

  /** One start: what went wrong, or null when every message published arrived once. */
  private String startPublishStop(int start, Duration publishing) throws Exception {
    server.freshDatabase("sqlite");
    emptyMessagingStore();
    if (start == 1) {
      server.start(Map.of());
    } else {
      server.startAgain();
    }
    try {
      try {
        server.awaitReady();
      } catch (RuntimeException notReady) {
        return keep(start, "not ready after 120 s");
      }
      Published published = publish(publishing);
      if (published.failure != null) {
        return keep(start, "a publish failed: " + published.failure);
      }
      try {
        await()
            .atMost(DELIVERY)
            .pollInterval(Duration.ofMillis(200))
            .until(() -> received().getInt("messages") >= published.count);
      } catch (ConditionTimeoutException notDelivered) {
        // told below, with what did arrive
      }
      JsonObject count = received();
      if (count.getInt("messages") != published.count
          || count.getInt("distinct") != published.count) {
        return keep(
            start,
            published.count
                + " published, "
                + count
                + " received "
                + DELIVERY.toSeconds()
                + " s later");
      }
      System.out.printf(
          "sqlite-stall: start %d: %d published in %d s, each received once%n",
          start, published.count, publishing.toSeconds());
      return null;
    } finally {
      Instant stopping = Instant.now();
      try {
        server.stop();
      } catch (RuntimeException stopFailed) {
        server.kill();
      }
      Duration stopped = Duration.between(stopping, Instant.now());
      if (stopped.toSeconds() > 60) {
        System.out.printf("sqlite-stall: start %d took %d s to stop%n", start, stopped.toSeconds());
      }
    }
  }

  /**
   * Deletes the stopped server's messaging engine store: persistent messages an earlier run left on
   * the demo's queue would be received, and counted, after this start.
   */
  private void emptyMessagingStore() throws Exception {
    Path store = server.dir().resolve("messaging");
    if (Files.exists(store)) {
      try (Stream<Path> files = Files.walk(store)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(f);
        }
      }
    }
  }

  private JsonObject received() throws Exception {
    HttpResponse<String> response = server.get("/demo/received/count");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return DemoClient.json(response.body());
  }

  private record Published(long count, String failure) {}

  /** {@link #PUBLISHERS} clients paying orders for {@code publishing}, each pay a publish. */
  private Published publish(Duration publishing) throws Exception {
    AtomicLong count = new AtomicLong();
    Instant until = Instant.now().plus(publishing);
    ExecutorService clients = Executors.newFixedThreadPool(PUBLISHERS);
    List<Future<?>> runs = new ArrayList<>();
    for (int c = 0; c < PUBLISHERS; c++) {
      int client = c;
      runs.add(
          clients.submit(
              () -> {
                long interval = SOAK.isZero() ? 0 : PUBLISHERS * 1_000_000_000L / SOAK_RATE;
                long next = System.nanoTime();
                for (int n = 0; Instant.now().isBefore(until); n++) {
                  demo.pay(client + "-" + (n % 50));
                  count.incrementAndGet();
                  next += interval;
                  LockSupport.parkNanos(next - System.nanoTime()); // the rate, not a wait
                }
                return null;
              }));
    }
    clients.shutdown();
    String failure = null;
    for (Future<?> run : runs) {
      try {
        run.get();
      } catch (Exception e) {
        failure = String.valueOf(e.getCause());
      }
    }
    return new Published(count.get(), failure);
  }

  /** Keeps the server's threads and log of a stalled start; returns {@code stall}. */
  private String keep(int start, String stall) throws Exception {
    Path dir = evidence.resolve("start-" + start);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("stall.txt"), stall + "\n");
    Path pid = server.dir().getParent().resolve(".pid/" + server.name() + ".pid");
    if (Files.exists(pid)) {
      new ProcessBuilder("jcmd", Files.readString(pid).trim(), "Thread.print")
          .redirectErrorStream(true)
          .redirectOutput(dir.resolve("threads.txt").toFile())
          .start()
          .waitFor(30, TimeUnit.SECONDS);
    }
    Path log = server.dir().resolve("logs/messages.log");
    if (Files.exists(log)) {
      Files.copy(log, dir.resolve("messages.log"), StandardCopyOption.REPLACE_EXISTING);
    }
    return stall;
  }

  /**
   * The outboxes whose workers poll beside the demo's: {@link #IDLE_OUTBOXES} of four partitions
   * each, every 100 ms, on the server's 32 executor threads.
   */
  private static String idleOutboxes() {
    StringBuilder xml = new StringBuilder("<server>\n");
    xml.append("  <variable name=\"outboxer.poll-interval\" value=\"100ms\"/>\n");
    for (int i = 0; i < IDLE_OUTBOXES; i++) {
      String prefix = "outboxer.outbox.idle-" + i;
      xml.append("  <variable name=\"" + prefix + ".relay\" value=\"jms\"/>\n");
      xml.append(
          "  <variable name=\"" + prefix + ".relay.jms.queue\" value=\"jms/outboxer/demo\"/>\n");
      xml.append("  <variable name=\"" + prefix + ".partitions\" value=\"4\"/>\n");
    }
    return xml.append("</server>\n").toString();
  }

  /** Keeps a core busy until {@code done}, so that the server's threads are preempted. */
  private static void spin(AtomicBoolean done) {
    long x = 0;
    while (!done.get()) {
      x += System.nanoTime() % 7;
    }
    spun = x;
  }

  /** Where {@link #spin} leaves its sum, so that its loop is not optimized away. */
  private static volatile long spun;
}
