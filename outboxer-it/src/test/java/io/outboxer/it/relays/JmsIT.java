package io.outboxer.it.relays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.internal.store.RowState;
import io.outboxer.it.jms.OrderedListener;
import io.outboxer.it.jms.OrderedListener.Consumed;
import io.outboxer.it.support.Bulk;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.Sql;
import jakarta.annotation.Resource;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The JMS relay on Liberty's embedded messaging engine: the {@link RelayScenarios}' bulk scenario
 * (read back by a message-driven bean with one instance), a queue that holds 20 messages and so
 * refuses sends while full, and a topic.
 */
@ExtendWith(ArquillianExtension.class)
class JmsIT extends RelayScenarios {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(JmsIT.class, RelayScenarios.class, OrderedListener.class);
  }

  @Resource(lookup = "jms/outboxer/ConnectionFactory")
  ConnectionFactory connectionFactory;

  @Resource(lookup = "jms/it/small")
  Queue smallQueue;

  @Resource(lookup = "jms/it/topic")
  Topic topic;

  JmsIT() {
    super(
        "it-jms",
        "it-jms-small",
        Duration.ofSeconds(180),
        Duration.ofSeconds(30),
        Duration.ofSeconds(120));
  }

  @Override
  long publishBulk(String group, int seq) {
    return outbox.publish(new ItEvents.Jms(group, seq));
  }

  /** The job-queue case: a message-driven bean limited to one instance consumes the queue. */
  @Override
  Reader bulkReader() {
    int[] next = {OrderedListener.consumed().size()};
    return () -> {
      List<Consumed> consumed = OrderedListener.consumed();
      List<Arrival> arrived = new ArrayList<>();
      for (Consumed c : consumed.subList(next[0], consumed.size())) {
        arrived.add(new Arrival(c.id(), c.group()));
      }
      next[0] = consumed.size();
      return arrived;
    };
  }

  /** {@code JMSXGroupSeq} increases within a group, and the bean never ran twice at once. */
  @Override
  void checkBulk(String run) {
    Map<String, List<Integer>> groupSeqs = new LinkedHashMap<>();
    for (Consumed c : OrderedListener.consumed()) {
      if (c.group() != null && c.group().startsWith(run)) {
        groupSeqs.computeIfAbsent(c.group(), g -> new ArrayList<>()).add(c.groupSeq());
      }
    }
    assertThat(groupSeqs).hasSize(100);
    groupSeqs.values().forEach(seqs -> assertThat(seqs).isSorted().doesNotHaveDuplicates());
    assertThat(OrderedListener.mostRunningAtOnce()).isEqualTo(1);
  }

  /**
   * A queue that holds 20 messages, and so refuses sends while full: that is the queue's state, not
   * the messages', and charges nothing. Five groups of ten in one transaction: the relay's batch of
   * 50 fills the queue, and the rest of the batch waits (not held, not charged) while the partition
   * backs off. Then a consumer takes them, and the relay fills the places it frees: every message
   * arrives once, each group in order, each at its first attempt.
   */
  @Test
  void aFullQueueChargesNothingAndEveryGroupArrivesInOrderAsItDrains() throws Exception {
    String run = "jms-full-" + UUID.randomUUID() + "-";
    try (JMSContext context = connectionFactory.createContext()) {
      try (JMSConsumer leftovers = context.createConsumer(smallQueue)) {
        while (leftovers.receive(500) != null) {
          // left by an earlier run of the suite: the queue's depth must start at 0
        }
      }
      Map<String, List<Long>> published =
          Bulk.publish(
              tx, run, 50, 5, (group, seq) -> outbox.publish(new ItEvents.JmsSmall(group, seq)));

      // No consumer yet: 20 fill the queue, the send of the 21st fails, the rest waits.
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInSameThread()
          .until(() -> rowsOf(run).size() == 30);
      assertThat(
              Sql.query(
                  "select id from outboxer_message where group_key like ?"
                      + " and (attempts > 0 or state <> "
                      + RowState.READY.code()
                      + ")",
                  run + "%"))
          .as("the 30 that did not fit: ready, never charged")
          .isEmpty();

      Map<String, List<Long>> arrived = new LinkedHashMap<>();
      Set<Integer> attempts = new HashSet<>();
      try (JMSConsumer consumer = context.createConsumer(smallQueue)) {
        for (int taken = 0; taken < 50; taken++) {
          Message m = consumer.receive(Duration.ofSeconds(30).toMillis());
          assertThat(m).as("message %d of 50", taken + 1).isNotNull();
          arrived
              .computeIfAbsent(m.getStringProperty("JMSXGroupID"), g -> new ArrayList<>())
              .add(m.getLongProperty("OutboxerId"));
          attempts.add(m.getIntProperty("OutboxerAttempt"));
        }
        assertThat(consumer.receive(1000)).as("nothing more").isNull();
      }
      assertThat(arrived).isEqualTo(published);
      assertThat(attempts).as("every message at its first attempt").containsExactly(1);
    }
    await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> rowsOf(run).isEmpty());
  }

  private static List<Object[]> rowsOf(String run) {
    return Sql.query("select id from outboxer_message where group_key like ?", run + "%");
  }

  /** A subscriber of a topic receives every group in order. */
  @Test
  void aTopicSubscriberReceivesEveryGroupInOrder() throws Exception {
    String run = "jms-topic-" + UUID.randomUUID() + "-";
    try (JMSContext context = connectionFactory.createContext()) {
      JMSConsumer subscriber = context.createConsumer(topic);
      Map<String, List<Long>> published =
          Bulk.publish(
              tx, run, 500, 5, (group, seq) -> outbox.publish(new ItEvents.JmsTopic(group, seq)));

      Map<String, List<Long>> arrived = new LinkedHashMap<>();
      Set<Long> seen = new HashSet<>();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInSameThread()
          .until(
              () -> {
                for (Message m = subscriber.receiveNoWait();
                    m != null;
                    m = subscriber.receiveNoWait()) {
                  long id = m.getLongProperty("OutboxerId");
                  assertThat(seen.add(id)).as("message %d arrived twice", id).isTrue();
                  arrived
                      .computeIfAbsent(m.getStringProperty("JMSXGroupID"), g -> new ArrayList<>())
                      .add(id);
                }
                return seen.size() == 500;
              });
      assertThat(arrived).isEqualTo(published);
    }
  }
}
