package io.outboxer.it.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.setup.DemoClient;
import io.outboxer.it.setup.KafkaBroker;
import io.outboxer.it.setup.LeaseHolders;
import io.outboxer.it.setup.LibertyServer;
import io.outboxer.it.setup.TestServices;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The ledger fault suite: two real servers with the demo application share one PostgreSQL database
 * and relay the outbox {@code default} (4 partitions, max-attempts 3, lease ttl 6 s) to a real
 * Kafka broker, while clients pay orders in 24 groups through both. The clients' ledger holds every
 * message the application answered for; a consumer reads the topic, committed records only.
 *
 * <p>Each test applies one fault under load, heals it, lets the backlog drain and compares the
 * consumer's log with the ledger: nothing lost, nothing unexpected (but for publishes whose answer
 * the fault took), no group out of order, no attempt charged (every record is its message's first
 * attempt, so with max-attempts 3 nothing died), at most one batch per partition read twice, and
 * the outbox table empty (nothing held, dead or left behind). The faults run in order on the same
 * servers, each on top of the previous ones' history.
 *
 * <p>Commit-safe order ({@code wait-for-writers}, PostgreSQL's default) is on, and the kill, the
 * terminated connections and the database restart cut publishing transactions off mid-flight: the
 * drains show that no row waits behind a transaction that no longer exists.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@EnabledIfSystemProperty(named = "outboxer.it.peer.server", matches = ".+") // the restart run's
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultIT {

  private static final String TOPIC = "ledger";
  private static final int PARTITIONS = 4;
  private static final int BATCH_SIZE = 100;
  private static final int GROUPS = 24;
  private static final int CLIENTS = 4;
  private static final String OVERRIDE = "fault-suite.xml";

  /** A partition's relay calls fail this many times in a row: over three backoff periods. */
  private static final int CALLS_IN_AN_OUTAGE = 4;

  private static final Pattern FAILED_CALLS = Pattern.compile("failed calls in a row: (\\d+)");

  private final LibertyServer a =
      new LibertyServer(
          System.getProperty("outboxer.it.server"), System.getProperty("outboxer.it.port"));
  private final LibertyServer b =
      new LibertyServer(
          System.getProperty("outboxer.it.peer.server"),
          System.getProperty("outboxer.it.peer.port"));
  private final Ledger ledger = new Ledger();
  private final Publishers publishers = new Publishers(ledger, GROUPS);
  private KafkaBroker kafka;
  private LedgerConsumer consumer;
  private String jdbcUrl;
  private int duplicatesBefore;

  @BeforeAll
  void startBrokerAndServers() throws Exception {
    Path kafkaDir = Path.of(System.getProperty("outboxer.it.kafka.dir"), "faults");
    TestServices.deleteTree(kafkaDir);
    // Topics exist only once created, so that the first fault is a topic that does not exist.
    kafka = new KafkaBroker(TestServices.freePort(), TestServices.freePort(), kafkaDir, false);
    kafka.start();

    jdbcUrl = a.freshDatabase("postgresql");
    b.shareDatabaseOf(a);
    String settings =
        """
        <server>
          <variable name="outboxer.lease.ttl" value="6s"/>
          <variable name="outboxer.outbox.default.relay" value="kafka"/>
          <variable name="outboxer.outbox.default.partitions" value="%d"/>
          <variable name="outboxer.outbox.default.batch-size" value="%d"/>
          <variable name="outboxer.outbox.default.max-attempts" value="3"/>
          <variable name="outboxer.outbox.default.relay.kafka.topic" value="%s"/>
          <variable name="outboxer.outbox.default.relay.kafka.bootstrap.servers" value="%s"/>
        </server>
        """
            .formatted(PARTITIONS, BATCH_SIZE, TOPIC, kafka.bootstrapServers());
    a.override(OVERRIDE, settings);
    b.override(OVERRIDE, settings);
    CompletableFuture<Void> startingB = CompletableFuture.runAsync(() -> start(b));
    start(a);
    startingB.join();
    publishers.target(a);
    publishers.target(b);
  }

  private static void start(LibertyServer server) {
    try {
      server.start(Map.of());
      server.awaitReady();
    } catch (Exception e) {
      throw new IllegalStateException("server " + server.name() + " did not start", e);
    }
  }

  @AfterAll
  void stopEverything() throws Exception {
    publishers.close();
    if (consumer != null) {
      consumer.close();
    }
    for (LibertyServer server : List.of(a, b)) {
      server.stop();
      server.removeOverride(OVERRIDE);
    }
    kafka.kill();
  }

  @AfterEach
  void stopPublishing() throws InterruptedException {
    publishers.stop();
  }

  @Test
  @Order(1)
  void aTopicThatDoesNotExistChargesNothingAndFlowsOnceCreated() throws Exception {
    publishers.start(CLIENTS);
    awaitOutage();
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
    }
    consumer = new LedgerConsumer(kafka.bootstrapServers(), TOPIC, PARTITIONS, ledger);
    drainAndCheck("a topic that did not exist");
  }

  @Test
  @Order(2)
  void theBrokerKilledForLongerThanThreeBackoffPeriodsChargesNothing() throws Exception {
    publishers.start(CLIENTS);
    awaitPublished(200);
    kafka.kill();
    awaitOutage();
    kafka.start();
    drainAndCheck("the broker killed");
  }

  @Test
  @Order(3)
  void aServerFrozenForLongerThanItsLeaseChangesNothingWhenItWakes() throws Exception {
    publishers.start(CLIENTS);
    await("both servers hold partitions")
        .atMost(Duration.ofSeconds(60))
        .until(this::holders, h -> h.size() == 2);
    awaitPublished(200);
    String frozenOwner = ownerPrefix(a);
    int lossesBefore = leaseLosses(a);
    publishers.spare(a);
    a.pause();
    long held;
    try {
      // Counted once it is frozen: until then it may still hand a partition back.
      held =
          holders().entrySet().stream()
              .filter(e -> e.getKey().startsWith(frozenOwner))
              .mapToLong(Map.Entry::getValue)
              .sum();
      await("the other server took the frozen one's partitions")
          .atMost(Duration.ofSeconds(30))
          .until(this::holders, h -> h.keySet().stream().noneMatch(o -> o.startsWith(frozenOwner)));
      awaitPublished(200);
    } finally {
      a.resume();
    }
    // Each partition it held: its completing write is fenced (OUTBOXER-3003) or its renewal
    // refused (OUTBOXER-3004) before it sends anything more.
    await("the woken server found each of its " + held + " leases lost")
        .atMost(Duration.ofSeconds(30))
        .until(() -> leaseLosses(a) - lossesBefore >= held);
    publishers.target(a);
    drainAndCheck("a server frozen");
  }

  @Test
  @Order(4)
  void everyConnectionOfBothServersTerminated() throws Exception {
    publishers.start(CLIENTS);
    awaitPublished(300);
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select count(pg_terminate_backend(pid)) from pg_stat_activity"
                    + " where datname = current_database() and pid <> pg_backend_pid()")) {
      rs.next();
      assertThat(rs.getInt(1)).as("connections of both servers terminated").isPositive();
    }
    awaitPublished(200);
    drainAndCheck("connections terminated");
  }

  @Test
  @Order(5)
  void postgresqlStoppedImmediatelyAndStartedAgain() throws Exception {
    publishers.start(CLIENTS);
    awaitPublished(300);
    int unansweredBefore = ledger.unansweredCount();
    postgres("stop", "-m", "immediate");
    try {
      await("payments fail while the database is down")
          .atMost(Duration.ofSeconds(30))
          .until(() -> ledger.unansweredCount() - unansweredBefore >= 10);
    } finally {
      postgres("start");
    }
    awaitPublished(200);
    drainAndCheck("PostgreSQL restarted");
  }

  @Test
  @Order(6)
  void aServerKilledMidBatchHandsItsPartitionsOver() throws Exception {
    publishers.start(CLIENTS);
    awaitPublished(300);
    a.kill(); // while its clients wait for answers and its workers deliver
    publishers.spare(a);
    await("the other server holds every partition")
        .atMost(Duration.ofSeconds(30))
        .until(this::holders, h -> h.size() == 1 && h.values().iterator().next() == PARTITIONS);
    awaitPublished(200);
    drainAndCheck("a server killed");
  }

  /** Waits until a partition's relay calls failed {@value #CALLS_IN_AN_OUTAGE} times in a row. */
  private void awaitOutage() {
    await("a relay outage of " + CALLS_IN_AN_OUTAGE + " failed calls in a row")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> Math.max(failedCallsInARow(a), failedCallsInARow(b)) >= CALLS_IN_AN_OUTAGE);
  }

  /** The longest run of failed relay calls a server's readiness data shows. */
  private static int failedCallsInARow(LibertyServer server) throws Exception {
    JsonObject health = DemoClient.json(server.get("/health/ready").body());
    int most = 0;
    for (JsonValue check : health.getJsonArray("checks")) {
      JsonObject data = check.asJsonObject().getJsonObject("data");
      if (data == null) {
        continue;
      }
      for (String key : data.keySet()) {
        if (key.startsWith("relay.default.partition.")) {
          Matcher m = FAILED_CALLS.matcher(data.getString(key));
          if (m.find()) {
            most = Math.max(most, Integer.parseInt(m.group(1)));
          }
        }
      }
    }
    return most;
  }

  /** Waits until {@code n} more payments were answered. */
  private void awaitPublished(int n) {
    int target = ledger.committedCount() + n;
    await(n + " more payments answered")
        .atMost(Duration.ofSeconds(120))
        .until(() -> ledger.committedCount() >= target);
  }

  /**
   * Stops the clients, waits until the consumer read everything and the outbox table is empty, and
   * checks the consumer's log against the ledger.
   */
  private void drainAndCheck(String fault) throws Exception {
    publishers.stop();
    try {
      await("every committed message read and the outbox empty")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .ignoreExceptions()
          .until(() -> ledger.allRead() && rows() == 0);
    } catch (ConditionTimeoutException e) {
      // The checks below say what is missing.
    }
    Ledger.Check check = ledger.check();
    System.out.printf(
        "%s: %d committed in all, %d unanswered, %d read, %d read twice in this fault%n",
        fault,
        ledger.committedCount(),
        ledger.unansweredCount(),
        ledger.deliveredCount(),
        check.duplicates() - duplicatesBefore);
    assertThat(check.lost()).as("committed, never read").isEmpty();
    assertThat(rows()).as("rows left in the outbox (held, dead or pending)").isZero();
    assertThat(check.reordered()).as("read after a later message of their group").isEmpty();
    assertThat(check.charged()).as("records sent in an attempt after the first").isZero();
    assertThat(check.unexpected().size())
        .as("read without a committed answer: " + check.unexpected())
        .isLessThanOrEqualTo(ledger.unansweredCount());
    assertThat(check.duplicates() - duplicatesBefore)
        .as("records read twice in this fault: at most one batch per partition")
        .isLessThanOrEqualTo(BATCH_SIZE * PARTITIONS);
    duplicatesBefore = check.duplicates();
    assertThat(ledger.committedCount()).as("messages in the ledger").isPositive();
  }

  private Map<String, Long> holders() throws SQLException {
    return LeaseHolders.of(jdbcUrl);
  }

  private long rows() throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select count(*) from outboxer_message")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The start of the lease owner names of {@code server}'s engine ({@code <server>@<host>…}). */
  private static String ownerPrefix(LibertyServer server) {
    return server.name() + "@";
  }

  /** How many times the server logged a lease lost mid-batch or expired before its renewal. */
  private static int leaseLosses(LibertyServer server) throws Exception {
    return server.logLines("OUTBOXER-3003").size() + server.logLines("OUTBOXER-3004").size();
  }

  private Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    return Admin.create(p);
  }

  /** Runs {@code pg_ctlcluster} on the machine's PostgreSQL cluster, as root may. */
  private static void postgres(String action, String... options) throws Exception {
    String version;
    try (var versions = Files.list(Path.of("/etc/postgresql"))) {
      version = versions.map(p -> p.getFileName().toString()).findFirst().orElseThrow();
    }
    List<String> command = new ArrayList<>(List.of("pg_ctlcluster", "--skip-systemctl-redirect"));
    command.addAll(List.of(options));
    command.addAll(List.of(version, "main", action));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
  }
}
