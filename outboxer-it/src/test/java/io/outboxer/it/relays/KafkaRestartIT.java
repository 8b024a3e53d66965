package io.outboxer.it.relays;

import static io.outboxer.it.support.SuiteDatabase.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.internal.store.RowState;
import io.outboxer.it.setup.TestServices;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.KafkaRecords;
import io.outboxer.it.support.OnDatabase;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.transaction.UserTransaction;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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
 * The Kafka broker is killed while the outbox delivers and started again. The outage charges no
 * message: with max-attempts 3 and the broker down for more than three backoff periods nothing
 * becomes dead; readiness stays UP and names the waiting partitions; nothing is lost, delivery
 * resumes, and every group stays in order.
 */
@OnDatabase(
    value = "postgresql",
    because = "it counts rows through the PostgreSQL suite's database")
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaRestartIT {

  private static final int GROUPS = 20;
  private static final int MESSAGES = 3_000;

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(KafkaRestartIT.class);
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  @Test
  @Order(1)
  void publishWhileTheBrokerRuns() throws Exception {
    publish(0, MESSAGES / 3);
  }

  @Test
  @Order(2)
  @RunAsClient
  void killTheBroker() throws Exception {
    TestServices.kafka().kill();
  }

  @Test
  @Order(3)
  void publishWhileItIsDown() throws Exception {
    publish(MESSAGES / 3, MESSAGES);
  }

  @Test
  @Order(4)
  @RunAsClient
  void startItAgainOnceDeliveriesFailedMoreThanThreeBackoffPeriods() throws Exception {
    // While it is down, each partition's calls fail and it backs off (200ms, 400ms, 800ms, 1s):
    // readiness stays UP and names both partitions, and no message is charged an attempt.
    HttpClient http = HttpClient.newHttpClient();
    URI ready =
        URI.create(
            "http://localhost:"
                + System.getProperty("outboxer.it.arquillian.port")
                + "/health/ready");
    Pattern failedCalls = Pattern.compile("unavailable \\(failed calls in a row: (\\d+)\\): ");
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              HttpResponse<String> response =
                  http.send(HttpRequest.newBuilder(ready).build(), BodyHandlers.ofString());
              assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
              JsonObject data = outboxerCheck(response.body()).getJsonObject("data");
              for (int p = 0; p < 2; p++) {
                JsonString outage = data.getJsonString("relay.it-kafka-restart.partition." + p);
                Matcher m = outage == null ? null : failedCalls.matcher(outage.getString());
                if (m == null || !m.lookingAt() || Integer.parseInt(m.group(1)) < 4) {
                  return false;
                }
              }
              return true;
            });
    assertThat(
            count(
                "select count(*) from outboxer_message where outbox = 'it-kafka-restart'"
                    + " and (attempts > 0 or state <> "
                    + RowState.READY.code()
                    + ")"))
        .as("no message charged, none dead")
        .isZero();
    TestServices.kafka().start();
  }

  private static JsonObject outboxerCheck(String health) {
    try (JsonReader reader = Json.createReader(new StringReader(health))) {
      return reader.readObject().getJsonArray("checks").stream()
          .map(JsonValue::asJsonObject)
          .filter(c -> c.getString("name").equals("outboxer"))
          .findFirst()
          .orElseThrow();
    }
  }

  private void publish(int from, int to) throws Exception {
    for (int start = from; start < to; start += 500) {
      tx.begin();
      for (int seq = start; seq < Math.min(start + 500, to); seq++) {
        outbox.publish(new ItEvents.KafkaRestart("restart-g" + (seq % GROUPS), seq));
      }
      tx.commit();
    }
  }

  @Test
  @Order(5)
  void everythingArrivesInGroupOrderAndNothingIsDead() throws Exception {
    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    Set<Long> seen = new HashSet<>();
    try (KafkaConsumer<String, String> consumer = KafkaRecords.consumer("kafka-restart-it")) {
      consumer.subscribe(List.of("outboxer-it-restart"));
      await()
          .atMost(Duration.ofSeconds(180))
          .pollInSameThread()
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  long id = KafkaRecords.id(r);
                  if (seen.add(id)) {
                    arrived.computeIfAbsent(r.key(), g -> new ArrayList<>()).add(id);
                  }
                }
                return seen.size() >= MESSAGES;
              });
    }
    assertThat(seen).hasSize(MESSAGES);
    assertThat(arrived).hasSize(GROUPS);
    arrived.forEach((group, ids) -> assertThat(ids).as(group).isSorted());
    assertThat(admin.counts("it-kafka-restart").dead()).isZero();
    assertThat(admin.counts("it-kafka-restart").pending()).isZero();
  }
}
