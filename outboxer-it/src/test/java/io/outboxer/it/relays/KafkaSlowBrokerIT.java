package io.outboxer.it.relays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.it.support.Brokers;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.KafkaRecords;
import io.outboxer.it.support.OnDatabase;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A broker too slow for a whole batch: a client quota lets the outbox's producer write 100 KB a
 * second, so a batch of 1,000 records of 1.5 KB cannot commit within the call's budget (a third of
 * the 30 s lease ttl). The partition's next calls send half as many, which commit, and every
 * message arrives in order, none charged; once the broker is fast again, whole batches commit. The
 * consumer tells each committed transaction by its offsets: one producer writes the topic's one
 * partition, a transaction's records take consecutive offsets and its commit marker the next one.
 */
@OnDatabase(
    value = "postgresql",
    because = "the relay's behaviour does not depend on the database; one run is enough")
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaSlowBrokerIT {

  private static final String TOPIC = "outboxer-it-slow";
  private static final String CLIENT_ID = "outboxer-it-slow";
  private static final int BATCH = 1_000;
  private static final int PADDING = 1_500;
  private static final int GROUPS = 10;

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(KafkaSlowBrokerIT.class);
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  @Test
  @Order(1)
  void aBatchTooLargeToCommitWithinTheBudgetIsSentInSmallerParts() throws Exception {
    quota(100_000.0);
    try {
      publish(0, BATCH);
      List<List<Long>> transactions = committedTransactions(BATCH, Duration.ofSeconds(150));
      assertThat(transactions.get(0))
          .as("the first committed transaction, after one of the whole batch timed out")
          .hasSizeLessThanOrEqualTo(BATCH / 2);
      assertThat(transactions.stream().flatMap(List::stream).toList())
          .as("every message once, in id order (one partition)")
          .hasSize(BATCH)
          .isSorted()
          .doesNotHaveDuplicates();
    } finally {
      quota(null);
    }
    assertThat(admin.counts("it-kafka-slow").dead()).as("none charged to death").isZero();
  }

  @Test
  @Order(2)
  void wholeBatchesOnceTheBrokerKeepsUpAgain() throws Exception {
    publish(BATCH, 4 * BATCH);
    List<List<Long>> transactions = committedTransactions(4 * BATCH, Duration.ofSeconds(90));
    assertThat(transactions)
        .as("transactions of whole batches again")
        .anySatisfy(t -> assertThat(t).hasSize(BATCH));
    assertThat(transactions.stream().flatMap(List::stream).toList()).hasSize(4 * BATCH).isSorted();
    assertThat(admin.counts("it-kafka-slow").pending()).isZero();
  }

  /** Sets (or, with null, removes) the producer byte rate of the relay's client id. */
  private static void quota(Double bytesPerSecond) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Brokers.kafkaBootstrap());
    try (Admin kafka = Admin.create(p)) {
      kafka
          .alterClientQuotas(
              List.of(
                  new ClientQuotaAlteration(
                      new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, CLIENT_ID)),
                      List.of(new ClientQuotaAlteration.Op("producer_byte_rate", bytesPerSecond)))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  private void publish(int from, int to) throws Exception {
    tx.begin();
    for (int seq = from; seq < to; seq++) {
      outbox.publish(new ItEvents.KafkaSlow("slow-g" + (seq % GROUPS), seq, PADDING));
    }
    tx.commit();
  }

  /**
   * Reads the topic's committed records from the beginning until {@code count} messages arrived;
   * returns the ids of each committed transaction, in the topic's order.
   */
  private static List<List<Long>> committedTransactions(int count, Duration within) {
    Map<Long, List<Long>> byStart = new LinkedHashMap<>();
    Set<Long> seen = new HashSet<>();
    long[] last = {-2};
    try (KafkaConsumer<String, String> consumer =
        KafkaRecords.consumer("kafka-slow-it-" + System.nanoTime())) {
      consumer.subscribe(List.of(TOPIC));
      await()
          .atMost(within)
          .pollInSameThread()
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  long id = KafkaRecords.id(r);
                  seen.add(id);
                  if (r.offset() != last[0] + 1) {
                    byStart.put(r.offset(), new ArrayList<>());
                  }
                  byStart.values().stream().reduce((a, b) -> b).orElseThrow().add(id);
                  last[0] = r.offset();
                }
                return seen.size() >= count;
              });
    }
    return new ArrayList<>(byStart.values());
  }
}
