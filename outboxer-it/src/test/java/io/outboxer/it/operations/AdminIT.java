package io.outboxer.it.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.MessageDetails;
import io.outboxer.MessageState;
import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.it.relay.Journal;
import io.outboxer.it.relay.Script;
import io.outboxer.it.setup.Dashboard;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvent;
import io.outboxer.it.support.ItEvents;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import jakarta.transaction.UserTransaction;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admin API ({@code /outboxer/admin}) and the dashboard ({@code /outboxer/}) over real HTTP,
 * the dashboard in a real headless Chromium: what an operator sees of failed messages, and that the
 * repairs reach the relay. Steps run in order; the server-side ones publish and check the relay.
 */
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdminIT {

  private static final String DEAD = "admin-it:dead";
  private static final String DEAD_TOO = "admin-it:dead-too";
  private static final String STUCK = "admin-it:stuck";
  private static final String ADMIN = "admin";
  private static final String VIEWER = "it-viewer";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  /** The messages made in the first step, for the last one (same server, same class). */
  private static final List<Long> DEAD_IDS = new ArrayList<>();

  private static final List<Long> STUCK_IDS = new ArrayList<>();

  @Deployment
  static EnterpriseArchive deployment() {
    // Dashboard drives the browser from outside the server; the server only needs its class to load
    // this one, never Selenium's, since no step that runs there touches it.
    return Deployments.outboxerWith(AdminIT.class, Dashboard.class);
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  @Test
  @Order(1)
  void twoDeadMessagesInOneGroupOneInAnotherAndAGroupStuckBehindAFailingMessage() throws Exception {
    forget("it-dead", DEAD, DEAD_TOO);
    forget("it-stuck", STUCK);
    Script.fail("it-dead", e -> e.groupKey() != null && e.groupKey().startsWith("admin-it:dead"));
    DEAD_IDS.addAll(
        publish(
            new ItEvents.Dead(DEAD, 0),
            new ItEvents.Dead(DEAD, 1),
            new ItEvents.Dead(DEAD_TOO, 0)));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInSameThread()
        .until(() -> ids("it-dead", MessageState.DEAD).containsAll(DEAD_IDS));
    Script.failNothing("it-dead");

    Script.fail("it-stuck", e -> STUCK.equals(e.groupKey()));
    STUCK_IDS.addAll(publish(new ItEvents.Stuck(STUCK, 0), new ItEvents.Stuck(STUCK, 1)));
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInSameThread()
        .until(
            () ->
                ids("it-stuck", MessageState.RETRYING).contains(STUCK_IDS.get(0))
                    && ids("it-stuck", MessageState.HELD).contains(STUCK_IDS.get(1)));
    // Its next attempt is an hour away: only an operator gets the group moving now.
    Script.failNothing("it-stuck");
  }

  @Test
  @Order(2)
  @RunAsClient
  void anonymousCallersGet401AndUsersWithoutTheRole403() throws Exception {
    for (String path : List.of("/outboxer/admin/outboxes", "/outboxer/")) {
      HttpResponse<String> anonymous = call("GET", path, null);
      assertThat(anonymous.statusCode()).as(path).isEqualTo(401);
      assertThat(anonymous.headers().firstValue("WWW-Authenticate"))
          .as(path)
          .hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
      assertThat(call("GET", path, VIEWER).statusCode()).as(path).isEqualTo(403);
      assertThat(call("GET", path, ADMIN).statusCode()).as(path).isEqualTo(200);
    }
  }

  @Test
  @Order(3)
  @RunAsClient
  void theApiShowsCountsOwnersAndTheFailedMessagesWithTheirLastError() throws Exception {
    JsonObject itDead =
        array(ok("GET", "/outboxer/admin/outboxes")).stream()
            .map(JsonValue::asJsonObject)
            .filter(o -> o.getString("name").equals("it-dead"))
            .findFirst()
            .orElseThrow();
    assertThat(itDead.getInt("dead")).isGreaterThanOrEqualTo(3);

    List<JsonObject> dead = inGroups(page("it-dead", "dead", ""), DEAD, DEAD_TOO);
    assertThat(dead).hasSize(3);
    for (JsonObject m : dead) {
      assertThat(m.getString("state")).isEqualTo("DEAD");
      assertThat(m.getInt("attempts")).isEqualTo(3);
      assertThat(m.getString("type")).isEqualTo(ItEvents.Dead.class.getName());
      assertThat(m.getString("lastError"))
          .isEqualTo("scripted failure of message " + m.getJsonNumber("id").longValue());
    }
    // Pages follow id order: the next page starts after the last id of this one.
    JsonObject first = object(ok("GET", "/outboxer/admin/outboxes/it-dead/messages?limit=1"));
    long next = first.getJsonNumber("next").longValue();
    assertThat(first.getJsonArray("messages")).hasSize(1);
    assertThat(first.getJsonArray("messages").getJsonObject(0).getJsonNumber("id").longValue())
        .isEqualTo(next);
    JsonArray second =
        object(ok("GET", "/outboxer/admin/outboxes/it-dead/messages?limit=1&after=" + next))
            .getJsonArray("messages");
    assertThat(second.getJsonObject(0).getJsonNumber("id").longValue()).isGreaterThan(next);

    List<JsonObject> retrying = inGroups(page("it-stuck", "retrying", ""), STUCK);
    List<JsonObject> held = inGroups(page("it-stuck", "held", ""), STUCK);
    assertThat(retrying).hasSize(1);
    assertThat(held).hasSize(1);
    assertThat(retrying.get(0).getJsonNumber("id").longValue())
        .isLessThan(held.get(0).getJsonNumber("id").longValue());
    assertThat(Instant.parse(retrying.get(0).getString("nextAttemptAt")))
        .isAfter(Instant.now().plus(Duration.ofMinutes(50)));

    // Both partitions of it-stuck are delivered by this server's workers; the group's partition
    // counts one retrying and one held message.
    JsonObject stuck = object(ok("GET", "/outboxer/admin/outboxes/it-stuck"));
    assertThat(stuck.getInt("retrying")).isEqualTo(1);
    assertThat(stuck.getInt("held")).isEqualTo(1);
    JsonArray partitions = stuck.getJsonArray("partitions");
    assertThat(partitions).hasSize(2);
    for (JsonValue p : partitions) {
      assertThat(p.asJsonObject().getString("owner")).isNotBlank();
      assertThat(Instant.parse(p.asJsonObject().getString("leaseExpiresAt")))
          .isAfter(Instant.now());
    }
    int partition = retrying.get(0).getInt("partition");
    JsonObject counts = partitions.getJsonObject(partition);
    assertThat(counts.getInt("retrying")).isEqualTo(1);
    assertThat(counts.getInt("held")).isEqualTo(1);
  }

  @Test
  @Order(4)
  @RunAsClient
  void badInputIsRefusedWithAJsonErrorThatNamesIt() throws Exception {
    String api = "/outboxer/admin/outboxes";
    record Refusal(String method, String path, int status, String error) {}
    List<Refusal> refusals =
        List.of(
            new Refusal("GET", api + "/nope", 404, "OUTBOXER-2005 "),
            new Refusal("GET", api + "/nope/messages", 404, "OUTBOXER-2005 "),
            new Refusal("GET", api + "/it-dead/messages?limit=0", 400, "OUTBOXER-4003 "),
            new Refusal("GET", api + "/it-dead/messages?limit=501", 400, "OUTBOXER-4003 "),
            new Refusal("GET", api + "/it-dead/messages?limit=ten", 400, "OUTBOXER-4003 "),
            new Refusal("GET", api + "/it-dead/messages?after=-1", 400, "OUTBOXER-4005 'after'"),
            new Refusal("GET", api + "/it-dead/messages?state=zombie", 400, "OUTBOXER-4006 "),
            new Refusal("POST", api + "/it-dead/messages/abc/retry", 400, "OUTBOXER-4005 'id'"),
            new Refusal("POST", api + "/it-dead/messages/0/retry", 400, "OUTBOXER-4005 'id'"),
            new Refusal("POST", api + "/it-dead/messages/999999999/retry", 404, "OUTBOXER-4001 "),
            new Refusal("DELETE", api + "/it-dead/messages/999999999", 404, "OUTBOXER-4001 "),
            new Refusal("POST", api + "/it-stuck/release", 400, "OUTBOXER-4004 "),
            new Refusal("POST", api + "/it-stuck/release?group=", 400, "OUTBOXER-4004 "),
            new Refusal("GET", api + "/it-dead/nothing-here", 404, "Not Found"),
            new Refusal("PUT", api + "/it-dead", 405, "Method Not Allowed"));
    for (Refusal r : refusals) {
      HttpResponse<String> response = call(r.method(), r.path(), ADMIN);
      String where = r.method() + " " + r.path() + " answered " + response.body();
      assertThat(response.statusCode()).as(where).isEqualTo(r.status());
      assertThat(response.headers().firstValue("Content-Type"))
          .as(where)
          .hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
      assertThat(object(response.body()).getString("error")).as(where).startsWith(r.error());
      assertThat(response.body()).as(where).doesNotContain("Exception", "\tat ");
    }
    // A live message is not dead: reviving it is refused, and it stays where it was.
    long held =
        inGroups(page("it-stuck", "held", ""), STUCK).get(0).getJsonNumber("id").longValue();
    HttpResponse<String> notDead =
        call("POST", api + "/it-stuck/messages/" + held + "/retry", ADMIN);
    assertThat(notDead.statusCode()).isEqualTo(409);
    assertThat(object(notDead.body()).getString("error")).startsWith("OUTBOXER-4002 ");
    assertThat(inGroups(page("it-stuck", "held", ""), STUCK)).hasSize(1);
  }

  @Test
  @Order(5)
  @RunAsClient
  void theDashboardShowsADeadMessageAndItsRetryButtonDeliversIt() throws Exception {
    long id = inGroups(page("it-dead", "dead", ""), DEAD).get(0).getJsonNumber("id").longValue();
    try (Dashboard dashboard = Dashboard.open(url("/outboxer/"), ADMIN, ADMIN)) {
      dashboard.show("it-dead");
      assertThat(dashboard.row("dead", id))
          .containsSequence(String.valueOf(id), DEAD, ItEvents.Dead.class.getName(), "3")
          .contains("scripted failure of message " + id);
      assertThat(dashboard.shows("held", id)).isFalse();
      dashboard.screenshot(Path.of("target", "dashboard-dead-message.png"));

      dashboard.click("dead", id, "retry");
      dashboard.awaitGone("dead", id);
      assertThat(dashboard.status()).isEqualTo("Retried " + id + ": 1 message(s)");
    }
  }

  @Test
  @Order(6)
  @RunAsClient
  void discardRetryingAGroupsDeadAndReleasingAStuckGroupThroughTheApi() throws Exception {
    long discarded =
        inGroups(page("it-dead", "dead", ""), DEAD).get(0).getJsonNumber("id").longValue();
    String message = "/outboxer/admin/outboxes/it-dead/messages/" + discarded;
    assertThat(object(ok("DELETE", message)).getInt("messages")).isEqualTo(1);
    HttpResponse<String> again = call("DELETE", message, ADMIN);
    assertThat(again.statusCode()).isEqualTo(404);

    assertThat(
            object(ok("POST", "/outboxer/admin/outboxes/it-dead/retry-dead?group=" + DEAD_TOO))
                .getInt("messages"))
        .isEqualTo(1);
    assertThat(
            object(ok("POST", "/outboxer/admin/outboxes/it-stuck/release?group=" + STUCK))
                .getInt("messages"))
        .isEqualTo(1);
  }

  @Test
  @Order(7)
  void theRepairsReachedTheRelayInGroupOrderAndTheDiscardedMessageNever() {
    long retried = DEAD_IDS.get(0);
    long discarded = DEAD_IDS.get(1);
    long revived = DEAD_IDS.get(2);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInSameThread()
        .untilAsserted(
            () -> {
              assertThat(delivered("admin-it:dead")).containsExactly(retried, revived);
              assertThat(delivered(STUCK)).containsExactlyElementsOf(STUCK_IDS);
            });
    assertThat(Journal.ofGroupsStartingWith(DEAD).stream().filter(a -> a.id() == discarded))
        .hasSize(3)
        .allMatch(Journal.Attempt::failed);
    for (MessageState state : MessageState.values()) {
      assertThat(ids("it-dead", state)).doesNotContainAnyElementsOf(DEAD_IDS);
      assertThat(ids("it-stuck", state)).doesNotContainAnyElementsOf(STUCK_IDS);
    }
  }

  // Server side.

  private List<Long> publish(ItEvent... events) throws Exception {
    List<Long> ids = new ArrayList<>();
    tx.begin();
    for (ItEvent e : events) {
      ids.add(outbox.publish(e));
    }
    tx.commit();
    return ids;
  }

  private List<Long> ids(String outbox, MessageState state) {
    return admin.messages(outbox, state, 0, OutboxAdmin.MAX_PAGE).stream()
        .map(MessageDetails::id)
        .toList();
  }

  /** Removes what an earlier run on the same database left of these groups. */
  private void forget(String outbox, String... groups) {
    for (MessageState state : MessageState.values()) {
      for (MessageDetails m : admin.messages(outbox, state, 0, OutboxAdmin.MAX_PAGE)) {
        if (List.of(groups).contains(m.groupKey())) {
          admin.discard(outbox, m.id());
        }
      }
    }
  }

  private static List<Long> delivered(String groupPrefix) {
    return Journal.delivered(Journal.ofGroupsStartingWith(groupPrefix)).stream()
        .map(Journal.Attempt::id)
        .toList();
  }

  // Client side.

  private static String url(String path) {
    return "http://localhost:" + System.getProperty("outboxer.it.arquillian.port") + path;
  }

  private static HttpResponse<String> call(String method, String path, String user)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url(path)))
            .timeout(Duration.ofSeconds(30))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (user != null) {
      String credentials = user + ":" + user;
      request.header(
          "Authorization",
          "Basic "
              + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
    }
    return HTTP.send(request.build(), BodyHandlers.ofString());
  }

  private static String ok(String method, String path) throws Exception {
    HttpResponse<String> response = call(method, path, ADMIN);
    assertThat(response.statusCode())
        .as(method + " " + path + ": " + response.body())
        .isEqualTo(200);
    return response.body();
  }

  private static String page(String outbox, String state, String query) throws Exception {
    return ok(
        "GET", "/outboxer/admin/outboxes/" + outbox + "/messages?limit=500&state=" + state + query);
  }

  private static List<JsonObject> inGroups(String page, String... groups) {
    return object(page).getJsonArray("messages").stream()
        .map(JsonValue::asJsonObject)
        .filter(m -> !m.isNull("groupKey") && List.of(groups).contains(m.getString("groupKey")))
        .toList();
  }

  private static JsonObject object(String json) {
    return (JsonObject) read(json);
  }

  private static JsonArray array(String json) {
    return (JsonArray) read(json);
  }

  private static JsonStructure read(String json) {
    try (var reader = Json.createReader(new StringReader(json))) {
      return reader.read();
    }
  }
}
