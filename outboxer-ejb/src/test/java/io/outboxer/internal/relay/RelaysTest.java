package io.outboxer.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.TestOutboxes;
import io.outboxer.spi.Relay;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class RelaysTest {

  private static final ExecutorService EXECUTOR =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "relays-test");
            t.setDaemon(true);
            return t;
          });

  private static Relay create(OutboxConfig outbox) {
    return Relays.create(outbox, Duration.ofSeconds(10), EXECUTOR);
  }

  private static OutboxConfig outbox(String relay, Map<String, String> settings) {
    return TestOutboxes.orders(relay, settings);
  }

  @Test
  void anUnknownRelayNamesTheKeyAndTheKnownOnes() {
    assertThatThrownBy(() -> create(outbox("carrier-pigeon", Map.of())))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1007 unknown relay outboxer.outbox.orders.relay=carrier-pigeon: expected one"
                + " of [echo, jms, kafka, sqs]");
  }

  @Test
  void theJmsRelayNeedsAQueueOrATopic() {
    assertThatThrownBy(() -> create(outbox("jms", Map.of())))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration outboxer.outbox.orders.relay.jms.queue: the JNDI"
                + " name of the queue the JMS relay sends to (or relay.jms.topic for a topic)");
    assertThatThrownBy(
            () -> create(outbox("jms", Map.of("queue", "jms/orders", "topic", "jms/events"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1001 invalid configuration outboxer.outbox.orders.relay.jms.topic=jms/events:"
                + " expected relay.jms.queue or relay.jms.topic, not both");
  }

  @Test
  void theKafkaRelayNeedsItsTopicAndBrokers() {
    assertThatThrownBy(() -> create(outbox("kafka", Map.of("bootstrap.servers", "127.0.0.1:9092"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration outboxer.outbox.orders.relay.kafka.topic: the"
                + " topic the Kafka relay sends to");
    assertThatThrownBy(() -> create(outbox("kafka", Map.of("topic", "orders"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration"
                + " outboxer.outbox.orders.relay.kafka.bootstrap.servers: the Kafka brokers to"
                + " connect to");
  }

  @Test
  void theSqsRelayNeedsAFifoQueueAndCompleteCredentials() {
    assertThatThrownBy(() -> create(outbox("sqs", Map.of("region", "eu-west-1"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration outboxer.outbox.orders.relay.sqs.queue-url: the"
                + " URL of the FIFO queue the SQS relay sends to");
    assertThatThrownBy(
            () -> create(outbox("sqs", Map.of("queue-url", "https://sqs.example/1/orders"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1001 invalid configuration"
                + " outboxer.outbox.orders.relay.sqs.queue-url=https://sqs.example/1/orders:"
                + " expected a FIFO queue (its name ends with .fifo); standard queues do not keep"
                + " order");
    assertThatThrownBy(
            () ->
                create(
                    outbox(
                        "sqs",
                        Map.of(
                            "queue-url",
                            "https://sqs.example/1/orders.fifo",
                            "region",
                            "eu-west-1",
                            "access-key-id",
                            "AKIDEXAMPLE"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration"
                + " outboxer.outbox.orders.relay.sqs.secret-access-key: access-key-id and"
                + " secret-access-key go together");
    assertThatThrownBy(
            () ->
                create(
                    outbox(
                        "sqs",
                        Map.of(
                            "queue-url",
                            "https://sqs.example/1/orders.fifo",
                            "region",
                            "eu-west-1",
                            "endpoint",
                            "localhost:9324"))))
        .isInstanceOf(OutboxException.class)
        .hasMessageStartingWith(
            "OUTBOXER-1001 invalid configuration"
                + " outboxer.outbox.orders.relay.sqs.endpoint=localhost:9324: expected a URL such"
                + " as http://host:port");
  }

  @Test
  void anSqsRequestLimitOutsideWhatSqsCanTakeIsRefusedByName() {
    assertThatThrownBy(
            () ->
                create(
                    outbox(
                        "sqs",
                        Map.of(
                            "queue-url",
                            "https://sqs.example/1/orders.fifo",
                            "max-request-bytes",
                            "1k"))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1001 invalid configuration"
                + " outboxer.outbox.orders.relay.sqs.max-request-bytes=1k: expected a whole number"
                + " of bytes from 1024 to 16777216");
  }

  @Test
  void aRelayProviderGetsItsSettingsAndTheCallBudget() {
    Relay relay = create(outbox("echo", Map.of("target", "somewhere")));

    assertThat(relay)
        .isEqualTo(
            new EchoRelayProvider.EchoRelay(
                "orders", Map.of("target", "somewhere"), Duration.ofSeconds(10)));
  }
}
