package io.outboxer.it.support;

import static org.awaitility.Awaitility.await;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Consumes a JMS queue of the test server as an application would, keeping what it received in
 * arrival order. Messages of other tests are received too; callers filter by their own groups.
 */
public final class QueueProbe implements AutoCloseable {

  private final JMSContext context;
  private final JMSConsumer consumer;
  private final List<Received> received = new ArrayList<>();

  public QueueProbe(String queueJndiName) {
    try {
      InitialContext jndi = new InitialContext();
      ConnectionFactory factory = (ConnectionFactory) jndi.lookup("jms/outboxer/ConnectionFactory");
      Queue queue = (Queue) jndi.lookup(queueJndiName);
      context = factory.createContext();
      consumer = context.createConsumer(queue);
    } catch (NamingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Receives until {@code done} holds for everything received so far, or fails after a minute. */
  public List<Received> receiveUntil(Predicate<List<Received>> done) {
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              drain();
              return done.test(received);
            });
    return List.copyOf(received);
  }

  private void drain() throws JMSException {
    Message m;
    while ((m = consumer.receive(100)) != null) {
      received.add(
          new Received(
              m.getLongProperty("OutboxerId"),
              m.getStringProperty("OutboxerOutbox"),
              m.getStringProperty("OutboxerGroup"),
              m.getStringProperty("OutboxerType"),
              ((TextMessage) m).getText()));
    }
  }

  @Override
  public void close() {
    context.close();
  }
}
