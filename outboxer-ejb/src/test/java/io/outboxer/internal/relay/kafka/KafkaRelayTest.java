package io.outboxer.internal.relay.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.TestOutboxes;
import io.outboxer.spi.Envelope;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

class KafkaRelayTest {

  private static Properties producerProperties(Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(extra);
    settings.put("topic", "orders");
    settings.put("bootstrap.servers", "127.0.0.1:9092");
    OutboxConfig outbox = TestOutboxes.orders("kafka", settings);
    try (KafkaRelay relay = KafkaRelay.create(outbox, Duration.ofSeconds(10))) {
      return relay.producerProperties();
    }
  }

  @Test
  void theProducerIsIdempotentAndItsTimeoutsFollowTheCallBudget() {
    Properties p = producerProperties(Map.of("compression.type", "zstd"));

    assertThat(p)
        .containsEntry("enable.idempotence", "true")
        .containsEntry("acks", "all")
        .containsEntry("max.in.flight.requests.per.connection", "5")
        .containsEntry("delivery.timeout.ms", "10000")
        .containsEntry("request.timeout.ms", "5000")
        .containsEntry("max.block.ms", "5000")
        .containsEntry("compression.type", "zstd")
        .containsEntry("bootstrap.servers", "127.0.0.1:9092")
        .doesNotContainKeys("topic", "transactional-id-prefix");
  }

  @Test
  void timeoutsTheConfigurationSetsAreLeftAsTheyAre() {
    Properties p = producerProperties(Map.of("request.timeout.ms", "30000"));

    assertThat(p)
        .containsEntry("request.timeout.ms", "30000")
        .doesNotContainKeys("delivery.timeout.ms", "max.block.ms");
  }

  /**
   * A broker that takes the connection and never answers: the call ends within its budget saying
   * Kafka is unavailable, and charges no message.
   */
  @Test
  void aBatchToABrokerThatNeverAnswersEndsWithinTheCallBudget() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Map<String, String> settings = new HashMap<>();
      settings.put("topic", "orders");
      settings.put("bootstrap.servers", "127.0.0.1:" + silent.getLocalPort());
      List<Envelope> batch =
          List.of(
              new Envelope(1, "orders", 0, "a", "T", "{}", 1, "a"),
              new Envelope(2, "orders", 0, "b", "T", "{}", 1, "b"));

      try (KafkaRelay relay =
          KafkaRelay.create(TestOutboxes.orders("kafka", settings), Duration.ofSeconds(1))) {
        // Only the call is timed: starting and closing the producer are not part of its budget.
        long started = System.nanoTime();
        assertThatThrownBy(() -> relay.deliver(batch))
            .isInstanceOf(KafkaException.class)
            .hasMessageContaining("Timeout");
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(took).isLessThan(Duration.ofSeconds(3));
      }
    }
  }
}
