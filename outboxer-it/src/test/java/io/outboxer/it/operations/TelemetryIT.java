package io.outboxer.it.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.it.relay.Script;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.KafkaRecords;
import io.outboxer.it.telemetry.MetricsEvent;
import io.outboxer.it.telemetry.MetricsScrape;
import io.outboxer.it.telemetry.TracedApplication;
import io.outboxer.it.telemetry.TracedResource;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Metrics as a scraper reads them ({@code /metrics} over HTTP, Prometheus text) while messages
 * flow, fail and die; and the trace context a message was published in, carried to the consumer.
 */
@ExtendWith(ArquillianExtension.class)
class TelemetryIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(
        TelemetryIT.class,
        MetricsScrape.class,
        MetricsEvent.class,
        MetricsEvent.Dying.class,
        MetricsEvent.Held.class,
        TracedApplication.class,
        TracedResource.class);
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  private final String run = "telemetry-" + UUID.randomUUID() + "-";

  @AfterEach
  void heal() {
    Script.failNothing("it-metrics");
    Script.failNothing("it-metrics-held");
  }

  @Test
  void countersMoveByExactlyWhatWasPublishedDeliveredFailedAndDead() throws Exception {
    String ok = run + "ok";
    String dying = run + "dying";
    Script.fail(
        "it-metrics", e -> dying.equals(e.groupKey()) && e.payload().endsWith("\"seq\":0}"));
    MetricsScrape before = MetricsScrape.now();

    tx.begin();
    outbox.publish(new MetricsEvent.Dying(run + "rolled-back", 0));
    tx.rollback();
    tx.begin();
    for (int seq = 0; seq < 3; seq++) {
      outbox.publish(new MetricsEvent.Dying(ok, seq));
    }
    outbox.publish(new MetricsEvent.Dying(dying, 0));
    outbox.publish(new MetricsEvent.Dying(dying, 1));
    tx.commit();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                delta(before, MetricsScrape.now(), "outboxer_dead_total") == 1
                    && delta(before, MetricsScrape.now(), "outboxer_delivered_total") == 4);
    MetricsScrape after = MetricsScrape.now();

    assertThat(delta(before, after, "outboxer_published_total")).as("published").isEqualTo(5);
    assertThat(delta(before, after, "outboxer_delivered_total")).as("delivered").isEqualTo(4);
    assertThat(delta(before, after, "outboxer_failed_total")).as("failed attempts").isEqualTo(3);
    assertThat(delta(before, after, "outboxer_dead_total")).as("dead").isEqualTo(1);
    assertThat(delta(before, after, "outboxer_relay_call_seconds_count"))
        .as("relay calls: the first batch, two retries of the head, the message behind it")
        .isGreaterThanOrEqualTo(4);
    assertThat(
            after.value(
                "outboxer_relay_call_seconds_bucket", "outbox=\"it-metrics\"", "le=\"30.0\""))
        .as("a histogram bucket holding every call")
        .isEqualTo(after.of("outboxer_relay_call_seconds_count", "it-metrics"));
    assertThat(
            after.value(
                "outboxer_lease_changes_total", "outbox=\"it-metrics\"", "change=\"taken\""))
        .as("the partition's lease, taken when the engine started")
        .isGreaterThanOrEqualTo(1);

    // The gauges read the database: one dead message, nothing pending, no group held.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> MetricsScrape.now().of("outboxer_dead_messages", "it-metrics") == 1);
    MetricsScrape settled = MetricsScrape.now();
    assertThat(settled.of("outboxer_pending_messages", "it-metrics")).isZero();
    assertThat(settled.of("outboxer_held_groups", "it-metrics")).isZero();
    assertThat(settled.of("outboxer_oldest_pending_age_seconds", "it-metrics")).isZero();

    // Revived and let through: delivered, and no dead message left.
    Script.failNothing("it-metrics");
    assertThat(admin.retryDead("it-metrics")).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                delta(before, MetricsScrape.now(), "outboxer_delivered_total") == 5
                    && MetricsScrape.now().of("outboxer_dead_messages", "it-metrics") == 0);
    assertThat(delta(before, MetricsScrape.now(), "outboxer_published_total"))
        .as("a revived message is not published again")
        .isEqualTo(5);
  }

  @Test
  void gaugesShowPendingMessagesHeldGroupsAndTheOldestMessagesAge() throws Exception {
    String held = run + "held";
    Script.fail("it-metrics-held", e -> held.equals(e.groupKey()));
    tx.begin();
    for (int seq = 0; seq < 3; seq++) {
      outbox.publish(new MetricsEvent.Held(held, seq));
    }
    tx.commit();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              MetricsScrape now = MetricsScrape.now();
              return now.of("outboxer_held_groups", "it-metrics-held") == 1
                  && now.of("outboxer_oldest_pending_age_seconds", "it-metrics-held") >= 1;
            });
    assertThat(MetricsScrape.now().of("outboxer_pending_messages", "it-metrics-held")).isEqualTo(3);

    Script.failNothing("it-metrics-held");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              MetricsScrape now = MetricsScrape.now();
              return now.of("outboxer_pending_messages", "it-metrics-held") == 0
                  && now.of("outboxer_held_groups", "it-metrics-held") == 0
                  && now.of("outboxer_oldest_pending_age_seconds", "it-metrics-held") == 0;
            });
  }

  @Test
  void aMessagePublishedInATracedRequestCarriesItsTraceToTheKafkaRecord() throws Exception {
    String traceId = HexFormat.of().formatHex(randomBytes(16));
    String callerSpan = HexFormat.of().formatHex(randomBytes(8));
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            MetricsScrape.serverUrl()
                                + "/outboxer-tests/it/publish/kafka/"
                                + run
                                + "traced"))
                    .header("traceparent", "00-" + traceId + "-" + callerSpan + "-01")
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    long traced = Long.parseLong(response.body());
    // This test runs in a servlet request, which Liberty traces too: outside any span here.
    long untraced;
    try (Scope outsideAnySpan = Context.root().makeCurrent()) {
      tx.begin();
      untraced = outbox.publish(new ItEvents.Kafka(run + "untraced", 0));
      tx.commit();
    }

    Map<Long, ConsumerRecord<String, String>> records = new HashMap<>();
    try (KafkaConsumer<String, String> consumer = KafkaRecords.consumer(run + "reader")) {
      consumer.subscribe(List.of("outboxer-it"));
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInSameThread()
          .until(
              () -> {
                consumer
                    .poll(Duration.ofMillis(200))
                    .forEach(r -> records.put(KafkaRecords.id(r), r));
                return records.containsKey(traced) && records.containsKey(untraced);
              });
    }

    Header header = records.get(traced).headers().lastHeader("traceparent");
    assertThat(header).as("traceparent header of the traced message").isNotNull();
    String traceParent = new String(header.value(), StandardCharsets.UTF_8);
    assertThat(traceParent)
        .as("the caller's trace, with the span of the request that published it")
        .matches("00-" + traceId + "-[0-9a-f]{16}-01")
        .doesNotContain(callerSpan);
    assertThat(records.get(untraced).headers().lastHeader("traceparent"))
        .as("a message published outside a trace carries none")
        .isNull();
  }

  private static double delta(MetricsScrape before, MetricsScrape after, String name) {
    return after.of(name, "it-metrics") - before.of(name, "it-metrics");
  }

  private static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    ThreadLocalRandom.current().nextBytes(bytes);
    return bytes;
  }
}
