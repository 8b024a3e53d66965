package io.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
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

/**
 * Rows pending when the server stops are delivered after it starts again. A real Liberty server
 * with the demo application on SQLite: first started as a publish-only server
 * (outboxer.delivery.enabled=false), so that every published message is still a row when it stops;
 * then started again with delivery on.
 */
class RestartIT {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final Path wlp = Path.of(System.getProperty("outboxer.it.wlp"));
  private final String server = System.getProperty("outboxer.it.server");
  private final String base = "http://localhost:" + System.getProperty("outboxer.it.port");
  private final Path database = wlp.resolve("usr/servers/" + server + "/outboxer.db");

  @AfterEach
  void stopServer() throws Exception {
    server("stop", Map.of());
  }

  @Test
  void rowsPendingAtStopAreDeliveredAfterRestartInGroupOrder() throws Exception {
    for (String suffix : new String[] {"", "-wal", "-shm"}) {
      Files.deleteIfExists(Path.of(database + suffix));
    }
    server("start", Map.of("OUTBOXER_DELIVERY_ENABLED", "false"));
    awaitReady();

    Map<String, List<Long>> published = new LinkedHashMap<>();
    for (int i = 0; i < 20; i++) {
      String order = "r" + (i % 4);
      HttpResponse<String> response = post("/demo/orders/" + order + "/paid");
      assertThat(response.statusCode()).isEqualTo(201);
      long id = json(response.body()).getJsonNumber("messageId").longValue();
      published.computeIfAbsent("order:" + order, g -> new ArrayList<>()).add(id);
    }
    assertThat(get("/demo/received")).isEqualTo("[]");
    server("stop", Map.of());
    assertThat(pendingRows()).isEqualTo(20);

    // A changed partition count on this live backlog is refused: no delivery, readiness DOWN with
    // the reason, and publishing to the outbox refused, until the count is put back.
    server("start", Map.of("OUTBOXER_OUTBOX_DEFAULT_PARTITIONS", "8"));
    String refusal =
        "OUTBOXER-1101 outbox 'default' holds 20 messages hashed over 4 partitions, but"
            + " outboxer.outbox.default.partitions is now 8: its workers do not start until the"
            + " change is undone or the outbox is drained (pending and dead messages delivered or"
            + " discarded)";
    HttpResponse<String> ready =
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(500))
            .ignoreExceptions()
            .until(
                () ->
                    HTTP.send(
                        request("/health/ready").GET().build(),
                        HttpResponse.BodyHandlers.ofString()),
                r -> r.statusCode() == 503);
    JsonObject check = json(ready.body()).getJsonArray("checks").getJsonObject(0);
    assertThat(check.getString("status")).isEqualTo("DOWN");
    assertThat(check.getJsonObject("data").getString("outbox.default")).isEqualTo(refusal);
    assertThat(post("/demo/orders/r0/paid").statusCode()).isEqualTo(500);
    assertThat(get("/demo/received")).isEqualTo("[]");
    server("stop", Map.of());
    assertThat(pendingRows()).isEqualTo(20);

    server("start", Map.of());
    awaitReady();
    JsonArray received =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> Json.createReader(new StringReader(get("/demo/received"))).readArray(),
                array -> array.size() >= 20);

    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    for (JsonObject r : received.getValuesAs(JsonObject.class)) {
      arrived
          .computeIfAbsent(r.getString("group"), g -> new ArrayList<>())
          .add(r.getJsonNumber("id").longValue());
    }
    assertThat(received).hasSize(20);
    assertThat(arrived).isEqualTo(published);
    server("stop", Map.of());
    assertThat(pendingRows()).isZero();
  }

  private void server(String action, Map<String, String> env) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(wlp.resolve("bin/server").toString(), action, server)
            .redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes());
    int code = p.waitFor();
    // "stop" answers 1 when the server is not running, which is fine before a first start.
    if (code != 0 && !(action.equals("stop") && code == 1)) {
      throw new IllegalStateException(
          "server " + action + " " + server + " exited " + code + ": " + output);
    }
  }

  private void awaitReady() {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () ->
                HTTP.send(
                            request("/health/ready").GET().build(),
                            HttpResponse.BodyHandlers.ofString())
                        .statusCode()
                    == 200);
  }

  private long pendingRows() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select count(*) from outboxer_message")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private HttpResponse<String> post(String path) throws IOException, InterruptedException {
    return HTTP.send(
        request(path).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private String get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response =
        HTTP.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
  }

  private static JsonObject json(String body) {
    return Json.createReader(new StringReader(body)).readObject();
  }
}
