package io.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.scenario.Scenario;
import io.outboxer.it.scenario.ScenarioApplication;
import io.outboxer.it.scenario.ScenarioResource;
import io.outboxer.it.support.Deployments;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;

/**
 * Random publish sequences over random groups, with random relay failures, on a real Liberty
 * server: per group, what arrives is exactly the published sequence minus the dead messages;
 * nothing is lost, nothing arrives twice (the scripted relay never loses a commit, so no batch is
 * delivered again). Subclasses choose the database and start the server once for all tries.
 */
abstract class ScenarioProperties {

  /** A message of a generated scenario: its group (null: ungrouped) and its failing attempts. */
  record Msg(String group, int failures) {}

  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Path WLP =
      Path.of(System.getProperty("outboxer.it.wlp", "target/liberty/wlp"));
  private static final String SERVER =
      System.getProperty("outboxer.it.scenario.server", "outboxerScenario");
  private static final String BASE =
      "http://localhost:" + System.getProperty("outboxer.it.scenario.port", "19280");

  @Provide
  Arbitrary<List<Msg>> scenarios() {
    Arbitrary<String> group =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(2, Arbitraries.just((String) null)),
            net.jqwik.api.Tuple.of(8, Arbitraries.of("a", "b", "c", "d", "e")));
    Arbitrary<Integer> failures =
        Arbitraries.frequency(
            net.jqwik.api.Tuple.of(70, 0),
            net.jqwik.api.Tuple.of(10, 1),
            net.jqwik.api.Tuple.of(10, 2),
            net.jqwik.api.Tuple.of(10, 3));
    return Combinators.combine(group, failures).as(Msg::new).list().ofMinSize(1).ofMaxSize(40);
  }

  @Property(tries = 12)
  void perGroupExactlyThePublishedSequenceMinusTheDead(
      @ForAll("scenarios") List<Msg> messages,
      @ForAll @IntRange(min = 1, max = 10) int perTransaction)
      throws Exception {
    JsonArrayBuilder body = Json.createArrayBuilder();
    messages.forEach(
        m -> {
          var o = Json.createObjectBuilder().add("failures", m.failures());
          if (m.group() == null) {
            o.addNull("group");
          } else {
            o.add("group", m.group());
          }
          body.add(o);
        });
    String request =
        Json.createObjectBuilder()
            .add("messages", body)
            .add("perTransaction", perTransaction)
            .build()
            .toString();
    HttpResponse<String> response =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(BASE + "/scenario-tests/it/scenario"))
                .timeout(Duration.ofSeconds(90))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(request))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonObject result = Json.createReader(new StringReader(response.body())).readObject();

    List<Long> published = longs(result, "published", null);
    Set<Long> dead = new HashSet<>(longs(result, "dead", null));
    List<Long> delivered = longs(result, "delivered", "id");

    Set<Long> expectedDead = new HashSet<>();
    Map<String, List<Long>> expectedPerGroup = new LinkedHashMap<>();
    Map<Long, String> groupOf = new LinkedHashMap<>();
    for (int i = 0; i < messages.size(); i++) {
      long id = published.get(i);
      groupOf.put(id, messages.get(i).group());
      if (messages.get(i).failures() >= 3) {
        expectedDead.add(id);
      } else if (messages.get(i).group() != null) {
        expectedPerGroup.computeIfAbsent(messages.get(i).group(), g -> new ArrayList<>()).add(id);
      }
    }
    assertThat(dead).as("dead: exactly those failing max-attempts times").isEqualTo(expectedDead);
    assertThat(delivered).as("nothing twice").doesNotHaveDuplicates();
    Set<Long> expectedDelivered = new HashSet<>(published);
    expectedDelivered.removeAll(expectedDead);
    assertThat(new HashSet<>(delivered)).as("nothing lost").isEqualTo(expectedDelivered);
    Map<String, List<Long>> perGroup = new LinkedHashMap<>();
    for (long id : delivered) {
      String g = groupOf.get(id);
      if (g != null) {
        perGroup.computeIfAbsent(g, k -> new ArrayList<>()).add(id);
      }
    }
    assertThat(perGroup).as("each group in publication order").isEqualTo(expectedPerGroup);
  }

  private static List<Long> longs(JsonObject result, String key, String field) {
    List<Long> values = new ArrayList<>();
    for (var v : result.getJsonArray(key)) {
      JsonNumber n = field == null ? (JsonNumber) v : v.asJsonObject().getJsonNumber(field);
      values.add(n.longValue());
    }
    return values;
  }

  /** Deploys the scenario application and starts the server on {@code database}. */
  static void startServer(String database) throws Exception {
    Path dir = WLP.resolve("usr/servers/" + SERVER);
    Files.createDirectories(dir.resolve("dropins"));
    Deployments.outboxerWith(
            "scenario.ear",
            ScenarioResource.class,
            ScenarioApplication.class,
            Scenario.class,
            Scenario.Message.class)
        .as(ZipExporter.class)
        .exportTo(dir.resolve("dropins/scenario.ear").toFile(), true);
    for (String suffix : new String[] {"", "-wal", "-shm"}) {
      Files.deleteIfExists(dir.resolve("outboxer.db" + suffix));
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put("OUTBOXER_DATABASE", database);
    if (database.equals("postgresql")) {
      String name = System.getProperty("outboxer.it.pg.database") + "_prop";
      try (Connection c =
              DriverManager.getConnection(
                  System.getProperty("outboxer.it.pg.url") + "test", "postgres", "");
          Statement s = c.createStatement()) {
        s.execute("drop database if exists " + name + " with (force)");
        s.execute("create database " + name);
      }
      env.put("DB_NAME", name);
    }
    server("start", env);
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () ->
                HTTP.send(
                            HttpRequest.newBuilder(URI.create(BASE + "/health/ready")).build(),
                            HttpResponse.BodyHandlers.ofString())
                        .statusCode()
                    == 200);
  }

  static void stopServer() throws Exception {
    server("stop", Map.of());
    Files.deleteIfExists(WLP.resolve("usr/servers/" + SERVER + "/dropins/scenario.ear"));
  }

  private static void server(String action, Map<String, String> env) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(WLP.resolve("bin/server").toString(), action, SERVER)
            .redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes());
    int code = p.waitFor();
    if (code != 0 && !(action.equals("stop") && code == 1)) {
      throw new IllegalStateException(
          "server " + action + " " + SERVER + " exited " + code + ": " + output);
    }
  }
}
