package io.outboxer.it.relays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.support.Brokers;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.KafkaRecords;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Kafka relay against a real single-node KRaft broker: the {@link RelayScenarios}, read back by
 * a consumer that reads committed records only, as applications should. The topic of the refusing
 * outbox takes records of 1 KiB at most.
 */
@ExtendWith(ArquillianExtension.class)
class KafkaIT extends RelayScenarios {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(KafkaIT.class, RelayScenarios.class);
  }

  KafkaIT() {
    super(
        "it-kafka",
        "it-kafka-small",
        Duration.ofSeconds(120),
        Duration.ofSeconds(60),
        Duration.ofSeconds(60));
  }

  @Override
  long publishBulk(String group, int seq) {
    return outbox.publish(new ItEvents.Kafka(group, seq));
  }

  @Override
  Reader bulkReader() {
    return reader("outboxer-it");
  }

  @Override
  Reader refusalReader() throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", Brokers.kafkaBootstrap()))) {
      if (!admin.listTopics().names().get().contains("outboxer-it-small")) {
        admin
            .createTopics(
                List.of(
                    new NewTopic("outboxer-it-small", 1, (short) 1)
                        .configs(Map.of("max.message.bytes", "1024"))))
            .all()
            .get();
      }
    }
    return reader("outboxer-it-small");
  }

  /** Group a's third record is larger than the topic takes. */
  @Override
  void publishRefused(Refusals refusals) throws Exception {
    tx.begin();
    for (int i = 0; i < 5; i++) {
      for (String g : List.of("a", "b", "c")) {
        String group = refusals.run() + g;
        int padding = g.equals("a") && i == 2 ? 4000 : 10;
        refusals.add(group, outbox.publish(new ItEvents.KafkaSmall(group, i, padding)));
      }
    }
    tx.commit();
    refusals.refuse(
        refusals.id(refusals.run() + "a", 2),
        lastError -> assertThat(lastError).contains("RecordTooLargeException"));
  }

  @Override
  boolean bulkMayRepeat() {
    return true;
  }

  private static final Poison TOO_LARGE_FOR_THE_PRODUCER =
      new Poison(
          "larger than the producer's max.request.size (1 MiB by default)",
          lastError ->
              assertThat(lastError)
                  .startsWith("Kafka refused the record: ")
                  .contains("RecordTooLargeException")
                  .contains("max.request.size"));

  private static final Poison TOO_LARGE_FOR_THE_TOPIC =
      new Poison(
          "larger than the topic's max.message.bytes (1 KiB)",
          lastError ->
              assertThat(lastError)
                  .startsWith("Kafka refused the record: ")
                  .contains("RecordTooLargeException")
                  .doesNotContain("max.request.size"));

  @Test
  void aRefusedMessageHoldsBackOnlyTheRestOfItsGroup() throws Exception {
    refusalHoldsBackOnlyItsGroup();
  }

  @Test
  void aMessageRefusedInAFullBatchIsChargedAloneAndDiesAfterMaxAttempts() throws Exception {
    chargedAlone(false);
  }

  @Test
  void aMessageRefusedInAFullBatchIsChargedAloneAndHoldsItsGroupUnderInfinity() throws Exception {
    chargedAlone(true);
  }

  @Override
  List<Poison> poisons() {
    return List.of(TOO_LARGE_FOR_THE_PRODUCER, TOO_LARGE_FOR_THE_TOPIC);
  }

  @Override
  String poisonOutbox(boolean retriesForever) {
    return retriesForever ? "it-kafka-poison" : "it-kafka-poison3";
  }

  @Override
  Reader poisonReader() throws Exception {
    return refusalReader();
  }

  @Override
  long publishPoison(boolean retriesForever, String group, int seq, Poison poison) {
    int padding =
        poison == TOO_LARGE_FOR_THE_PRODUCER
            ? 1_500_000
            : poison == TOO_LARGE_FOR_THE_TOPIC ? 4000 : 10;
    return outbox.publish(
        retriesForever
            ? new ItEvents.KafkaPoison(group, seq, padding)
            : new ItEvents.KafkaPoison3(group, seq, padding));
  }

  /**
   * Kafka keeps order within a topic partition only: a total-order outbox sends every record to the
   * first partition of a topic of three, whatever the records' keys, and a consumer reads them in
   * the order they were published.
   */
  @Test
  void aTotalOrderOutboxKeepsItsOrderInATopicOfSeveralPartitions() throws Exception {
    try (Admin kafka = Admin.create(Map.of("bootstrap.servers", Brokers.kafkaBootstrap()))) {
      kafka.createTopics(List.of(new NewTopic("outboxer-it-total", 3, (short) 1))).all().get();
    }
    List<Long> published = new ArrayList<>();
    tx.begin();
    for (int i = 0; i < 60; i++) {
      published.add(outbox.publish(new ItEvents.KafkaTotal("key-" + (i % 7), i)));
    }
    tx.commit();

    List<ConsumerRecord<String, String>> received = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        KafkaRecords.consumer("kafka-it-" + UUID.randomUUID())) {
      consumer.subscribe(List.of("outboxer-it-total"));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                return received.size() >= published.size();
              });
    }

    assertThat(received).extracting(KafkaRecords::id).containsExactlyElementsOf(published);
    assertThat(received).extracting(ConsumerRecord::partition).containsOnly(0);
    assertThat(received).extracting(ConsumerRecord::key).contains("key-0", "key-6");
  }

  /** A consumer of its own group that reads {@code topic}'s committed records from the start. */
  private static Reader reader(String topic) {
    KafkaConsumer<String, String> consumer = KafkaRecords.consumer("kafka-it-" + UUID.randomUUID());
    consumer.subscribe(List.of(topic));
    return new Reader() {
      @Override
      public List<Arrival> take() {
        List<Arrival> arrived = new ArrayList<>();
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          arrived.add(new Arrival(KafkaRecords.id(r), r.key(), KafkaRecords.attempt(r)));
        }
        return arrived;
      }

      @Override
      public void close() {
        consumer.close();
      }
    };
  }
}
