package io.outboxer.it.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.it.setup.LibertyServer;
import io.outboxer.it.support.Deployments;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.nio.file.Files;
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

  private static final LibertyServer SERVER =
      new LibertyServer(
          System.getProperty("outboxer.it.scenario.server"),
          System.getProperty("outboxer.it.scenario.port"));

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
    HttpResponse<String> response = SERVER.post("/scenario-tests/it/scenario", request);
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

  /** Deploys the scenario application and starts the server on a fresh {@code database}. */
  static void startServer(String database) throws Exception {
    Files.createDirectories(SERVER.dir().resolve("dropins"));
    Deployments.outboxerWith(
            "scenario.ear",
            ScenarioResource.class,
            ScenarioApplication.class,
            Scenario.class,
            Scenario.Message.class)
        .as(ZipExporter.class)
        .exportTo(SERVER.dir().resolve("dropins/scenario.ear").toFile(), true);
    SERVER.freshDatabase(database);
    SERVER.start(Map.of());
    SERVER.awaitReady();
  }

  static void stopServer() throws Exception {
    SERVER.stop();
    Files.deleteIfExists(SERVER.dir().resolve("dropins/scenario.ear"));
  }
}
