package io.outboxer.internal.relay.jms;

import static io.outboxer.internal.relay.support.MessageAttributes.ATTEMPT;
import static io.outboxer.internal.relay.support.MessageAttributes.GROUP;
import static io.outboxer.internal.relay.support.MessageAttributes.ID;
import static io.outboxer.internal.relay.support.MessageAttributes.OUTBOX;
import static io.outboxer.internal.relay.support.MessageAttributes.TRACE_PARENT;
import static io.outboxer.internal.relay.support.MessageAttributes.TYPE;

import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.relay.support.BudgetedRelay;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Sends each message as a persistent {@link TextMessage} to a JMS queue or topic, synchronously: a
 * message is confirmed when {@code send} returned, and a group stops at its first failed send. The
 * group key travels as {@code JMSXGroupID}, so that a provider that supports message groups keeps a
 * group on one consumer, and {@code JMSXGroupSeq} increases within the group (see {@link
 * #groupSeq}).
 *
 * <p>Settings ({@code outboxer.outbox.<name>.relay.jms.*}): {@code queue}, the JNDI name of the
 * queue, or {@code topic}, the JNDI name of the topic (one of them required); {@code
 * connection-factory}, the JNDI name of the connection factory (default {@value
 * #DEFAULT_CONNECTION_FACTORY}).
 *
 * @param connectionFactory where connections come from
 * @param destination the queue or topic
 * @param callBudget once a batch took this long, no further message of it is sent
 */
public record JmsRelay(
    ConnectionFactory connectionFactory, Destination destination, Duration callBudget)
    implements BudgetedRelay {

  public static final String DEFAULT_CONNECTION_FACTORY = "jms/outboxer/ConnectionFactory";

  /**
   * Looks up the configured connection factory and queue or topic.
   *
   * @param callBudget once a batch took this long, no further message of it is sent
   */
  public static JmsRelay create(OutboxConfig outbox, Duration callBudget) {
    String queueName = outbox.relaySettings().get("queue");
    String topicName = outbox.relaySettings().get("topic");
    if (queueName == null && topicName == null) {
      throw outbox.missingRelaySetting(
          "queue",
          "the JNDI name of the queue the JMS relay sends to (or relay.jms.topic for a topic)");
    }
    if (queueName != null && topicName != null) {
      throw outbox.invalidRelaySetting(
          "topic", "expected relay.jms.queue or relay.jms.topic, not both");
    }
    String factoryName =
        outbox.relaySettings().getOrDefault("connection-factory", DEFAULT_CONNECTION_FACTORY);
    return new JmsRelay(
        lookup(outbox.relayKey("connection-factory"), factoryName, ConnectionFactory.class),
        queueName != null
            ? lookup(outbox.relayKey("queue"), queueName, Queue.class)
            : lookup(outbox.relayKey("topic"), topicName, Topic.class),
        callBudget);
  }

  private static <T> T lookup(String key, String jndiName, Class<T> type) {
    Object found;
    try {
      found = new InitialContext().lookup(jndiName);
    } catch (NamingException e) {
      throw new OutboxException(
          "OUTBOXER-1008 " + key + "=" + jndiName + ": no such JNDI resource (" + e + ")", e);
    }
    if (!type.isInstance(found)) {
      throw new OutboxException(
          "OUTBOXER-1008 "
              + key
              + "="
              + jndiName
              + ": expected a "
              + type.getSimpleName()
              + ", found "
              + found.getClass().getName());
    }
    return type.cast(found);
  }

  @Override
  public DeliveryReport deliver(List<Envelope> batch, Duration timeLeft) {
    Deadline deadline = deadline(timeLeft);
    DeliveryReport.Builder report = DeliveryReport.builder();
    Set<String> stopped = new HashSet<>();
    try (JMSContext context = connectionFactory.createContext()) {
      JMSProducer producer = context.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT);
      for (Envelope e : batch) {
        if (deadline.passed()) {
          break; // the rest of the batch stays pending, its attempts not counted
        }
        if (e.orderingScope() != null && stopped.contains(e.orderingScope())) {
          continue;
        }
        try {
          producer.send(destination, toMessage(context, e));
          report.confirmed(e.id());
        } catch (JMSRuntimeException | JMSException ex) {
          report.failed(e.id(), "JMS send to " + destination + " failed: " + ex);
          if (e.orderingScope() != null) {
            stopped.add(e.orderingScope());
          }
        }
      }
    }
    return report.build();
  }

  private static TextMessage toMessage(JMSContext context, Envelope e) throws JMSException {
    TextMessage message = context.createTextMessage(e.payload());
    message.setLongProperty(ID, e.id());
    message.setStringProperty(OUTBOX, e.outbox());
    message.setStringProperty(TYPE, e.type());
    message.setIntProperty(ATTEMPT, e.attempt());
    if (e.traceParent() != null) {
      message.setStringProperty(TRACE_PARENT, e.traceParent());
    }
    if (e.groupKey() != null) {
      message.setStringProperty(GROUP, e.groupKey());
      message.setStringProperty("JMSXGroupID", e.groupKey());
      message.setIntProperty("JMSXGroupSeq", groupSeq(e.id()));
    }
    return message;
  }

  /**
   * The {@code JMSXGroupSeq} of message {@code id}: the id itself while it fits a positive int, so
   * it increases within a group but is not consecutive (ids are shared by all groups of an outbox);
   * after 2^31 - 1 messages it starts again at 1. Consumers that order or deduplicate use the id
   * property, a long.
   */
  static int groupSeq(long id) {
    return (int) ((id - 1) % Integer.MAX_VALUE) + 1;
  }
}
