package io.outboxer.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.setup.DemoClient;
import io.outboxer.it.setup.LibertyServer;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rows pending when the server stops are delivered after it starts again. A real Liberty server
 * with the demo application, on SQLite and on PostgreSQL: first started as a publish-only server
 * (outboxer.delivery.enabled=false), so that every published message is still a row when it stops;
 * then with a changed partition count, which is refused; then as configured, with delivery on.
 */
class RestartIT {

  private final LibertyServer server =
      new LibertyServer(
          System.getProperty("outboxer.it.server"), System.getProperty("outboxer.it.port"));
  private final DemoClient demo = new DemoClient(server);
  private String jdbcUrl;

  @AfterEach
  void stopServer() throws Exception {
    server.stop();
    server.forgetLibertyRunVariables();
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "postgresql"})
  void rowsPendingAtStopAreDeliveredAfterRestartInGroupOrder(String database) throws Exception {
    jdbcUrl = server.freshDatabase(database);
    server.start(Map.of("OUTBOXER_DELIVERY_ENABLED", "false"));
    server.awaitReady();

    Map<String, List<Long>> published = new LinkedHashMap<>();
    for (int i = 0; i < 20; i++) {
      String order = "r" + (i % 4);
      published.computeIfAbsent("order:" + order, g -> new ArrayList<>()).add(demo.pay(order));
    }
    assertThat(demo.received()).isEmpty();

    // An order id too long for a group key: a 400 with Outboxer's refusal as JSON, and nothing
    // written (the payment's transaction rolled back with it).
    HttpResponse<String> tooLong = server.post("/demo/orders/" + "7".repeat(600) + "/paid", null);
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(DemoClient.json(tooLong.body()).getString("error"))
        .isEqualTo(
            "OUTBOXER-2004 group key of io.outboxer.demo.OrderPaid is 606 characters long; the"
                + " limit is 500");
    server.stop();
    assertThat(pendingRows()).isEqualTo(20);
    assertThat(count("select count(*) from demo_payment where length(order_id) > 100")).isZero();

    // A changed partition count on this live backlog is refused: no delivery, readiness DOWN with
    // the reason, and publishing to the outbox refused, until the count is put back.
    server.start(Map.of("OUTBOXER_OUTBOX_DEFAULT_PARTITIONS", "8"));
    HttpResponse<String> ready =
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .until(() -> server.get("/health/ready"), r -> r.statusCode() == 503);
    JsonObject check = DemoClient.json(ready.body()).getJsonArray("checks").getJsonObject(0);
    assertThat(check.getString("status")).isEqualTo("DOWN");
    String where = jdbcUrl.replaceAll("[?].*$", "");
    assertThat(check.getJsonObject("data").getString("database"))
        .as("readiness names the database in use, the one the environment selected")
        .startsWith(database + " jdbc:" + database + ":")
        .contains(where.substring(where.lastIndexOf('/') + 1));
    assertThat(check.getJsonObject("data").getString("outbox.default"))
        .isEqualTo(
            "OUTBOXER-1101 outbox 'default' holds 20 messages hashed over 4 partitions, but"
                + " outboxer.outbox.default.partitions is now 8: its workers do not start until"
                + " the change is undone or the outbox is drained (pending and dead messages"
                + " delivered or discarded)");
    assertThat(server.post("/demo/orders/r0/paid", null).statusCode()).isEqualTo(500);
    assertThat(demo.received()).isEmpty();
    server.stop();
    assertThat(pendingRows()).isEqualTo(20);

    server.start(Map.of());
    server.awaitReady();
    JsonArray received =
        await().atMost(Duration.ofSeconds(60)).until(demo::received, array -> array.size() >= 20);

    assertThat(received).hasSize(20);
    assertThat(DemoClient.byGroup(received)).isEqualTo(published);
    server.stop();
    assertThat(pendingRows()).isZero();
  }

  /**
   * A relay configuration Outboxer cannot use fails the deployment, with a message that names the
   * key: an unknown relay, then a relay without its required setting.
   */
  /**
   * The README's PostgreSQL command, {@code liberty:run -Dliberty.var.outboxer.database=postgresql
   * …}: liberty-maven-plugin writes those variables to a file in configDropins/overrides, which
   * Liberty reads after server.xml's includes; the database they name is the one in use.
   */
  @Test
  void theDatabaseLibertyRunsVariablesNameIsTheOneInUse() throws Exception {
    jdbcUrl = server.freshDatabase("postgresql");
    server.chooseDatabaseAsLibertyRunDoes();
    server.start(Map.of());
    server.awaitReady();

    JsonArray checks = DemoClient.json(server.get("/health/ready").body()).getJsonArray("checks");
    assertThat(checks).as("Outboxer's check, once").hasSize(1);
    JsonObject check = checks.getJsonObject(0);
    assertThat(check.getString("name")).isEqualTo("outboxer");
    String db = jdbcUrl.replaceAll("[?].*$", "");
    assertThat(check.getJsonObject("data").getString("database"))
        .startsWith("postgresql jdbc:postgresql://")
        .contains(db.substring(db.lastIndexOf('/') + 1));
    long id = demo.pay("readme");
    // The benchmark's baseline, a payment that publishes nothing: had it published, its message
    // would arrive between the two others, which share its group.
    HttpResponse<String> quiet = server.post("/demo/orders/readme/paid?publish=false", null);
    assertThat(quiet.statusCode()).as(quiet.body()).isEqualTo(204);
    long next = demo.pay("readme");
    await().atMost(Duration.ofSeconds(60)).until(() -> demo.received().size() >= 2);
    assertThat(count("select count(*) from demo_payment where order_id = 'readme'")).isEqualTo(3);
    assertThat(count("select partitions from outboxer_outbox where name = 'default'")).isEqualTo(4);
    assertThat(DemoClient.byGroup(demo.received()))
        .containsExactly(entry("order:readme", List.of(id, next)));
  }

  @Test
  void aBrokenRelayConfigurationFailsTheDeploymentNamingTheKey() throws Exception {
    jdbcUrl = server.freshDatabase("sqlite");

    server.start(Map.of("OUTBOXER_OUTBOX_DEFAULT_RELAY", "carrier-pigeon"));
    assertThat(applicationFailureLog())
        .contains(
            "OUTBOXER-1007 unknown relay outboxer.outbox.default.relay=carrier-pigeon: expected one"
                + " of [jms, kafka, sqs]");
    assertThat(server.get("/demo/received").statusCode()).isEqualTo(404);
    server.stop();

    server.start(Map.of("OUTBOXER_OUTBOX_DEFAULT_RELAY", "sqs"));
    assertThat(applicationFailureLog())
        .contains(
            "OUTBOXER-1002 missing configuration outboxer.outbox.default.relay.sqs.queue-url: the"
                + " URL of the FIFO queue the SQS relay sends to");
    assertThat(server.get("/demo/received").statusCode()).isEqualTo(404);
  }

  /** The server's log, once it reports that the application failed to start. */
  private String applicationFailureLog() {
    Path log = server.dir().resolve("logs/messages.log");
    return await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> Files.readString(log), text -> text.contains("CWWKZ0002E"));
  }

  private long pendingRows() throws SQLException {
    return count("select count(*) from outboxer_message");
  }

  private long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
