package io.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.it.jms.OrderedListener;
import io.outboxer.it.jms.OrderedListener.Consumed;
import io.outboxer.it.support.Bulk;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.Sql;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Topic;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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

/** The JMS relay on Liberty's embedded messaging engine. */
@ExtendWith(ArquillianExtension.class)
class JmsIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(JmsIT.class, OrderedListener.class);
  }

  @Inject Outbox outbox;
  @Inject UserTransaction tx;

  @Resource(lookup = "jms/outboxer/ConnectionFactory")
  ConnectionFactory connectionFactory;

  @Resource(lookup = "jms/it/small")
  Queue smallQueue;

  @Resource(lookup = "jms/it/topic")
  Topic topic;

  /**
   * The job-queue case: a message-driven bean limited to one instance consumes 10,000 messages of
   * 100 groups, each group in publishing order, and {@code JMSXGroupSeq} increases within a group.
   */
  @Test
  void anMdbWithOneInstanceConsumesEveryGroupInOrder() throws Exception {
    String run = "jms-" + UUID.randomUUID() + "-";
    Map<String, List<Long>> published =
        Bulk.publish(
            tx, run, 10_000, 100, (group, seq) -> outbox.publish(new ItEvents.Jms(group, seq)));

    await()
        .atMost(Duration.ofSeconds(180))
        .until(() -> ofRun(OrderedListener.consumed(), run).size() >= 10_000);

    List<Consumed> consumed = ofRun(OrderedListener.consumed(), run);
    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    Map<String, List<Integer>> groupSeqs = new LinkedHashMap<>();
    for (Consumed c : consumed) {
      arrived.computeIfAbsent(c.group(), g -> new ArrayList<>()).add(c.id());
      groupSeqs.computeIfAbsent(c.group(), g -> new ArrayList<>()).add(c.groupSeq());
    }
    assertThat(consumed).hasSize(10_000);
    assertThat(arrived).isEqualTo(published);
    groupSeqs.values().forEach(seqs -> assertThat(seqs).isSorted().doesNotHaveDuplicates());
    assertThat(OrderedListener.mostRunningAtOnce()).isEqualTo(1);
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

  private static List<Consumed> ofRun(List<Consumed> consumed, String run) {
    return consumed.stream().filter(c -> c.group() != null && c.group().startsWith(run)).toList();
  }

  /**
   * A queue that holds 20 messages: the send that finds it full fails, and its group stops there
   * while the other groups of the batch go on; with a slow consumer draining it, every group still
   * arrives complete, once, in order.
   */
  @Test
  void aFullQueueHoldsBackTheRestOfTheGroupWhoseSendFailed() throws Exception {
    String run = "jms-small-" + UUID.randomUUID() + "-";
    List<String> groups = List.of(run + "a", run + "b", run + "c", run + "d", run + "e");
    try (JMSContext context = connectionFactory.createContext()) {
      JMSConsumer consumer = context.createConsumer(smallQueue);
      while (consumer.receiveNoWait() != null) {
        // left by an earlier run of the suite: the queue's depth must start at 0
      }

      Map<String, List<Long>> published = new LinkedHashMap<>();
      tx.begin();
      for (int i = 0; i < 10; i++) {
        for (String g : groups) {
          published.computeIfAbsent(g, k -> new ArrayList<>()).add(publish(g, i));
        }
      }
      tx.commit();

      // One batch of 50: the first 20 sends fill the queue (4 per group), then each group's 5th
      // send fails and the rest of the group is not tried.
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInSameThread()
          .until(() -> rows(run, "attempts > 0") == 5);
      Map<String, List<Long>> onQueue = new LinkedHashMap<>();
      for (Message m : browse(context)) {
        onQueue
            .computeIfAbsent(m.getStringProperty("JMSXGroupID"), k -> new ArrayList<>())
            .add(m.getLongProperty("OutboxerId"));
      }
      Map<String, List<Long>> firstFour = new LinkedHashMap<>();
      published.forEach((g, ids) -> firstFour.put(g, ids.subList(0, 4)));
      assertThat(onQueue).isEqualTo(firstFour);
      assertThat(rows(run, "1 = 1")).isEqualTo(30);
      assertThat(rows(run, "attempts = 0")).as("untouched behind each failed send").isEqualTo(25);
      for (String g : groups) {
        long head = published.get(g).get(4);
        assertThat(
                (String)
                    Sql.query("select last_error from outboxer_message where id = ?", head)
                        .get(0)[0])
            .startsWith("JMS send to ")
            .contains("CWSIK");
      }

      // Publish 450 more and drain slowly, one message per 5 ms: the queue keeps filling up.
      for (int t = 0; t < 3; t++) {
        tx.begin();
        for (int i = 10 + t * 30; i < 10 + (t + 1) * 30; i++) {
          for (String g : groups) {
            published.get(g).add(publish(g, i));
          }
        }
        tx.commit();
      }
      Map<String, List<Long>> arrived = new LinkedHashMap<>();
      groups.forEach(g -> arrived.put(g, new ArrayList<>()));
      Set<Long> seen = new HashSet<>();
      List<Long> retried = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInSameThread()
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                Message m = consumer.receiveNoWait();
                if (m != null) {
                  long id = m.getLongProperty("OutboxerId");
                  assertThat(seen.add(id)).as("message %d arrived twice", id).isTrue();
                  arrived.get(m.getStringProperty("JMSXGroupID")).add(id);
                  if (m.getIntProperty("OutboxerAttempt") > 1) {
                    retried.add(id);
                  }
                }
                return seen.size() == 500;
              });

      assertThat(arrived).isEqualTo(published);
      assertThat(retried)
          .as("sends failed on the full queue while the consumer drained it")
          .hasSizeGreaterThan(5);
      assertThat(rows(run, "1 = 1")).isZero();
    }
  }

  private long publish(String group, int seq) {
    return outbox.publish(new ItEvents.JmsSmall(group, seq));
  }

  private static long rows(String run, String condition) {
    return Sql.number(
        "select count(*) from outboxer_message where outbox = 'it-jms-small' and group_key like ?"
            + " and "
            + condition,
        run + "%");
  }

  private List<Message> browse(JMSContext context) throws JMSException {
    try (QueueBrowser browser = context.createBrowser(smallQueue)) {
      return Collections.list(browser.getEnumeration()).stream().map(Message.class::cast).toList();
    }
  }
}
