package io.outboxer.it;

import static io.outboxer.it.support.SuiteDatabase.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.it.setup.TestServices;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.KafkaRecords;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * The Kafka broker is killed while the outbox delivers and started again: with max-attempts
 * infinity nothing becomes dead or is lost, delivery resumes, and every group stays in order.
 */
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
  void startItAgainOnceDeliveriesFailed() throws Exception {
    // Deliveries fail while it is down: attempts are counted, messages stay pending, none dies.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                count(
                        "select count(*) from outboxer_message where outbox = 'it-kafka-restart'"
                            + " and attempts > 0")
                    > 0);
    assertThat(
            count(
                "select count(*) from outboxer_message where outbox = 'it-kafka-restart' and state = 2"))
        .isZero();
    TestServices.kafka().start();
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
