package io.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.jms.OrderedListener;
import io.outboxer.it.jms.OrderedListener.Consumed;
import io.outboxer.it.support.Bulk;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import jakarta.annotation.Resource;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Topic;
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

/**
 * The JMS relay on Liberty's embedded messaging engine: the {@link RelayScenarios} (read back by a
 * message-driven bean with one instance, and by a consumer of a queue that holds 20 messages, so
 * that it refuses sends while full), and a topic.
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

  private SmallQueueReader smallQueueReader;

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

  @Override
  Reader refusalReader() {
    smallQueueReader = new SmallQueueReader();
    return smallQueueReader;
  }

  /**
   * Five groups of ten in one transaction, to a queue that holds 20 messages: the relay's one batch
   * of 50 fills the queue with the first four of each group, then each group's fifth send fails and
   * the rest of that group is not tried.
   */
  @Override
  void publishRefused(Refusals refusals) throws Exception {
    List<String> groups = groups(refusals);
    tx.begin();
    for (int i = 0; i < 10; i++) {
      for (String g : groups) {
        refusals.add(g, outbox.publish(new ItEvents.JmsSmall(g, i)));
      }
    }
    tx.commit();
    for (String g : groups) {
      refusals.refuse(
          refusals.id(g, 4),
          lastError -> assertThat(lastError).startsWith("JMS send to ").contains("CWSIK"));
    }
  }

  @Override
  boolean refusesWhileFull() {
    return true;
  }

  /**
   * Publishes 450 more and lets the consumer drain the queue slowly, one message per 5 ms: the
   * queue keeps filling up, and sends keep failing while it does.
   */
  @Override
  void liftRefusal(Refusals refusals) throws Exception {
    List<String> groups = groups(refusals);
    for (int t = 0; t < 3; t++) {
      tx.begin();
      for (int i = 10 + t * 30; i < 10 + (t + 1) * 30; i++) {
        for (String g : groups) {
          refusals.add(g, outbox.publish(new ItEvents.JmsSmall(g, i)));
        }
      }
      tx.commit();
    }
  }

  @Override
  void checkRelease(Refusals refusals) {
    assertThat(smallQueueReader.retried)
        .as("sends failed on the full queue while the consumer drained it")
        .hasSizeGreaterThan(5);
  }

  private static List<String> groups(Refusals refusals) {
    String run = refusals.run();
    return List.of(run + "a", run + "b", run + "c", run + "d", run + "e");
  }

  /** The queue that holds 20 messages, consumed one message per take. */
  private final class SmallQueueReader implements Reader {
    private final JMSContext context = connectionFactory.createContext();
    private final JMSConsumer consumer = context.createConsumer(smallQueue);
    final List<Long> retried = new ArrayList<>();

    SmallQueueReader() {
      while (consumer.receiveNoWait() != null) {
        // left by an earlier run of the suite: the queue's depth must start at 0
      }
    }

    @Override
    public List<Arrival> take() throws JMSException {
      Message m = consumer.receiveNoWait();
      if (m == null) {
        return List.of();
      }
      if (m.getIntProperty("OutboxerAttempt") > 1) {
        retried.add(m.getLongProperty("OutboxerId"));
      }
      return List.of(arrival(m));
    }

    @Override
    public List<Arrival> peek() throws JMSException {
      try (QueueBrowser browser = context.createBrowser(smallQueue)) {
        List<Arrival> held = new ArrayList<>();
        for (Object m : Collections.list(browser.getEnumeration())) {
          held.add(arrival((Message) m));
        }
        return held;
      }
    }

    @Override
    public Duration pollInterval() {
      return Duration.ofMillis(5);
    }

    @Override
    public void close() {
      context.close();
    }

    private Arrival arrival(Message m) throws JMSException {
      return new Arrival(m.getLongProperty("OutboxerId"), m.getStringProperty("JMSXGroupID"));
    }
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
