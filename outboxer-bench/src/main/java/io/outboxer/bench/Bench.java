package io.outboxer.bench;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The benchmark's entry point: starts the real parts (a PostgreSQL database of its own, a Kafka
 * broker, the Liberty server with the demo EAR, whose default outbox relays to that broker in 8
 * partitions, and beside it the WAR of the JMS limit pipeline), runs the scenarios (P1s on a SQLite
 * file, the server restarted on it and back), and writes the table, {@code bench.json} and {@code
 * bench.png} (no chart when only profiles ran).
 *
 * <p>Settings (system properties): {@code bench.p1.backlog} (P1's measured drains, default
 * 1000000), {@code bench.p1c.backlog} (P1c's burst, 200000), {@code bench.p1s.backlog} (P1 on
 * SQLite's, 100000), {@code bench.p1j.backlog} (P1 into JMS's, 50000), {@code bench.backlog} (P1's
 * warm-up, P1t, W1 and the profile's drain, 50000), {@code bench.p4.backlog} (the other groups'
 * messages in P4, 300000), {@code bench.groups} (10000), {@code bench.repetitions} (3), {@code
 * bench.p5.large} (1000000), {@code bench.w3.backlog} (800000: W3, sized for a drain of at least 30
 * s with the transaction open), {@code bench.p3.rate} (P3's messages per second; by default 500, or
 * half of P2's publishing throughput where that is less), {@code bench.budget.minutes} (12:
 * scenarios that would start later are left out, and the report says so), {@code bench.only} (the
 * scenarios to run, comma-separated: P1s, P1, P1c, P1t, P1j, profile, P5, P2, P3, P4, W1, W2, W3;
 * all when empty), {@code bench.broker.config} (comma-separated {@code key=value} lines added to
 * the Kafka broker's configuration; none when empty), {@code bench.require} (scenarios whose
 * targets must hold: the run fails, after writing its report, when one of them missed its target or
 * was not measured).
 */
public final class Bench {

  static final int PARTITIONS = 8;

  /** The product's default {@code batch-size}, which the limit pipelines take too. */
  static final int BATCH_SIZE = 2000;

  static final String TOPIC = "outboxer-bench";
  static final String DIRECT_TOPIC = "bench-direct";

  private Bench() {}

  public static void main(String[] args) throws Exception {
    long started = System.nanoTime();
    String port = System.getProperty("bench.port");
    Path out = Path.of(System.getProperty("bench.out"));
    try (Db db = new Db("jdbc:postgresql://127.0.0.1:5432/", "outboxer_bench_" + port);
        KafkaBroker kafka = new KafkaBroker(Path.of(System.getProperty("bench.kafka.dir")));
        LibertyServer server =
            new LibertyServer(
                Path.of(System.getProperty("bench.wlp")),
                System.getProperty("bench.server"),
                Integer.parseInt(port))) {
      System.out.println("bench: starting Kafka");
      kafka.start();
      kafka.createTopic(TOPIC, PARTITIONS);
      kafka.createTopic(DIRECT_TOPIC, PARTITIONS);
      JmsLimit.deploy(Path.of(System.getProperty("bench.wlp")), System.getProperty("bench.server"));
      System.out.println("bench: starting Liberty with the demo EAR on database " + db.name);
      server.start(Map.of("bench.kafka.bootstrap", kafka.bootstrapServers()), Rig.onPostgresql(db));
      long recorded =
          db.number("select partitions from outboxer_outbox where name = '" + Db.OUTBOX + "'");
      if (recorded != PARTITIONS) {
        throw new IllegalStateException(
            "the server's outbox has " + recorded + " partitions, the bench writes " + PARTITIONS);
      }
      Map<String, Callable<List<Long>>> components = new LinkedHashMap<>();
      // Read at each sample: P1 on SQLite restarts the server.
      components.put("liberty", () -> List.of(server.pid()));
      components.put("kafka", () -> List.of(kafka.pid()));
      components.put("postgresql", db::backendPids);
      components.put("bench", () -> List.of(ProcessHandle.current().pid()));
      try (LimitPipeline limit =
          new LimitPipeline(
              "postgresql", db, kafka.bootstrapServers(), TOPIC, PARTITIONS, BATCH_SIZE)) {
        limit.open();
        run(db, server, kafka, limit, components, started, out);
      }
    }
  }

  private static void run(
      Db db,
      LibertyServer server,
      KafkaBroker kafka,
      LimitPipeline limit,
      Map<String, Callable<List<Long>>> components,
      long started,
      Path out)
      throws Exception {
    Rig rig =
        new Rig(
            db,
            server,
            kafka,
            limit,
            new CpuMeter(components),
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
            PARTITIONS,
            BATCH_SIZE,
            TOPIC);
    Report report = new Report(Machine.describe(server, db));
    List<String> brokerConfig = KafkaBroker.addedConfig();
    if (!brokerConfig.isEmpty()) {
      report.note("the broker ran with " + String.join(", ", brokerConfig));
    }
    new Scenarios(rig, report, out, started, Integer.getInteger("bench.budget.minutes", 12)).run();
    String written = report.write(out);
    System.out.println(report.table());
    System.out.println("bench: wrote " + written + " in " + out);
    String required = System.getProperty("bench.require", "");
    List<String> unmet =
        required.isBlank() ? List.of() : report.unmet(List.of(required.split(",")));
    if (!unmet.isEmpty()) {
      throw new IllegalStateException("bench: required targets not met: " + unmet);
    }
  }
}
