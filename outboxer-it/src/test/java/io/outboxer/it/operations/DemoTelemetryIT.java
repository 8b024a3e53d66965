package io.outboxer.it.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.setup.DemoClient;
import io.outboxer.it.setup.LibertyServer;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The packaged server as the README runs it, with the demo: a payment made in a request that
 * carries a {@code traceparent} header reaches the demo's message-driven bean with the same trace
 * (mpTelemetry continues the caller's trace in the request's span, the JMS relay sends the span's
 * context as the {@code traceparent} property); and {@code /metrics} counts what flowed.
 */
class DemoTelemetryIT {

  private final LibertyServer server =
      new LibertyServer(
          System.getProperty("outboxer.it.server"), System.getProperty("outboxer.it.port"));
  private final DemoClient demo = new DemoClient(server);

  @AfterEach
  void stopServer() throws Exception {
    server.stop();
  }

  @Test
  void aPaymentMadeInATracedRequestReachesTheConsumerInThatTrace() throws Exception {
    server.freshDatabase("sqlite");
    server.start(Map.of());
    server.awaitReady();

    String traceId = HexFormat.of().formatHex(bytes(16));
    String callerSpan = HexFormat.of().formatHex(bytes(8));
    HttpResponse<String> paid =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(server.url("/demo/orders/t1/paid")))
                    .header("traceparent", "00-" + traceId + "-" + callerSpan + "-01")
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(paid.statusCode()).as(paid.body()).isEqualTo(201);
    long traced = DemoClient.json(paid.body()).getJsonNumber("messageId").longValue();
    long untraced = demo.pay("t2");

    JsonArray received =
        await().atMost(Duration.ofSeconds(60)).until(demo::received, array -> array.size() >= 2);
    assertThat(received).hasSize(2);
    JsonObject first = received.getJsonObject(0);
    assertThat(first.getJsonNumber("id").longValue()).isEqualTo(traced);
    assertThat(first.getString("traceparent"))
        .as("the caller's trace, and the span of the request that published the message")
        .matches("00-" + traceId + "-[0-9a-f]{16}-01")
        .doesNotContain(callerSpan);
    JsonObject second = received.getJsonObject(1);
    assertThat(second.getJsonNumber("id").longValue()).isEqualTo(untraced);
    assertThat(second.getString("traceparent"))
        .as("a request without a traceparent starts a trace of its own")
        .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01")
        .doesNotContain(traceId);

    HttpResponse<String> metrics = server.get("/metrics?scope=application");
    assertThat(metrics.statusCode())
        .as("/metrics answers a scraper without a login")
        .isEqualTo(200);
    assertThat(sample(metrics.body(), "outboxer_published_total")).isEqualTo(2);
    assertThat(sample(metrics.body(), "outboxer_delivered_total")).isEqualTo(2);
  }

  /** The value of {@code name} for the outbox {@code default} in Prometheus' text format. */
  private static double sample(String metrics, String name) {
    Matcher m =
        Pattern.compile("(?m)^" + name + "\\{[^}]*outbox=\"default\"[^}]*\\}\\s+([0-9.eE+-]+)")
            .matcher(metrics);
    assertThat(m.find()).as(name + " in\n" + metrics).isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static byte[] bytes(int n) {
    byte[] bytes = new byte[n];
    ThreadLocalRandom.current().nextBytes(bytes);
    return bytes;
  }
}
