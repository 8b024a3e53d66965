package io.outboxer.internal.relay;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.OutboxException;
import io.outboxer.internal.config.Ordering;
import io.outboxer.internal.config.OutboxSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelaysTest {

  private static OutboxSettings outbox(String relay, Map<String, String> settings) {
    return new OutboxSettings(
        "orders",
        Ordering.GROUP,
        1,
        0,
        Duration.ofSeconds(1),
        Duration.ofSeconds(60),
        100,
        false,
        relay,
        settings);
  }

  @Test
  void anUnknownRelayNamesTheKeyAndTheKnownOnes() {
    assertThatThrownBy(() -> Relays.create(outbox("carrier-pigeon", Map.of())))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1007 unknown relay outboxer.outbox.orders.relay=carrier-pigeon: expected one"
                + " of [jms, kafka]");
  }

  @Test
  void theJmsRelayNeedsItsQueue() {
    assertThatThrownBy(() -> Relays.create(outbox("jms", Map.of())))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration outboxer.outbox.orders.relay.jms.queue: the JNDI"
                + " name of the queue the JMS relay sends to");
  }

  @Test
  void theKafkaRelayNeedsItsTopicAndBrokers() {
    assertThatThrownBy(
            () -> Relays.create(outbox("kafka", Map.of("bootstrap.servers", "127.0.0.1:9092"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration outboxer.outbox.orders.relay.kafka.topic: the"
                + " topic the Kafka relay sends to");
    assertThatThrownBy(() -> Relays.create(outbox("kafka", Map.of("topic", "orders"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration"
                + " outboxer.outbox.orders.relay.kafka.bootstrap.servers: the Kafka brokers to"
                + " connect to");
  }
}
