package io.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.it.support.Brokers;
import io.outboxer.it.support.Bulk;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.KafkaRecords;
import io.outboxer.it.support.Sql;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * The Kafka relay against a real single-node KRaft broker (started for the PostgreSQL suite), read
 * back by a consumer that reads committed records only, as applications should.
 */
@ExtendWith(ArquillianExtension.class)
class KafkaIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(KafkaIT.class);
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  @Test
  void tenThousandMessagesOverAHundredGroupsArriveCompleteAndInGroupOrder() throws Exception {
    String run = "kafka-" + UUID.randomUUID() + "-";
    Map<String, List<Long>> published =
        Bulk.publish(
            tx, run, 10_000, 100, (group, seq) -> outbox.publish(new ItEvents.Kafka(group, seq)));

    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    Set<Long> seen = new HashSet<>();
    try (KafkaConsumer<String, String> consumer =
        KafkaRecords.consumer("kafka-it-" + UUID.randomUUID())) {
      consumer.subscribe(List.of("outboxer-it"));
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInSameThread()
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  if (r.key() != null && r.key().startsWith(run)) {
                    long id = KafkaRecords.id(r);
                    if (seen.add(id)) {
                      arrived.computeIfAbsent(r.key(), g -> new ArrayList<>()).add(id);
                    }
                  }
                }
                return seen.size() >= 10_000;
              });
    }
    assertThat(arrived).isEqualTo(published);
  }

  @Test
  void aRecordTooLargeForTheTopicHoldsBackOnlyTheRestOfItsGroup() throws Exception {
    String run = "kafka-small-" + UUID.randomUUID() + "-";
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
    Map<String, List<Long>> published = new LinkedHashMap<>();
    tx.begin();
    for (int i = 0; i < 5; i++) {
      for (String g : List.of("a", "b", "c")) {
        String group = run + g;
        int padding = g.equals("a") && i == 2 ? 4000 : 10;
        published
            .computeIfAbsent(group, k -> new ArrayList<>())
            .add(outbox.publish(new ItEvents.KafkaSmall(group, i, padding)));
      }
    }
    tx.commit();
    long tooLarge = published.get(run + "a").get(2);

    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    try (KafkaConsumer<String, String> consumer =
        KafkaRecords.consumer("kafka-it-" + UUID.randomUUID())) {
      consumer.subscribe(List.of("outboxer-it-small"));
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInSameThread()
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  if (r.key() != null && r.key().startsWith(run)) {
                    arrived
                        .computeIfAbsent(r.key(), g -> new ArrayList<>())
                        .add(KafkaRecords.id(r));
                  }
                }
                return arrived.getOrDefault(run + "b", List.of()).size() == 5
                    && arrived.getOrDefault(run + "c", List.of()).size() == 5
                    && Sql.number("select attempts from outboxer_message where id = ?", tooLarge)
                        >= 2;
              });
      // Whatever else is still in flight for group a would be here by now: one more poll.
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
        if (r.key() != null && r.key().startsWith(run)) {
          arrived.computeIfAbsent(r.key(), g -> new ArrayList<>()).add(KafkaRecords.id(r));
        }
      }
    }
    assertThat(arrived.get(run + "a"))
        .containsExactlyElementsOf(published.get(run + "a").subList(0, 2));
    assertThat(arrived.get(run + "b")).containsExactlyElementsOf(published.get(run + "b"));
    assertThat(arrived.get(run + "c")).containsExactlyElementsOf(published.get(run + "c"));
    assertThat(
            (String)
                Sql.query("select last_error from outboxer_message where id = ?", tooLarge)
                    .get(0)[0])
        .contains("RecordTooLargeException");
    assertThat(
            Sql.number(
                "select count(*) from outboxer_message where group_key = ? and state = 1",
                run + "a"))
        .as("the rest of group a is held, not sent")
        .isEqualTo(2);
    admin.discard("it-kafka-small", tooLarge);
  }
}
