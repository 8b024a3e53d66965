package io.outboxer.internal.relay.jms;

import static io.outboxer.internal.relay.support.MessageAttributes.ATTEMPT;
import static io.outboxer.internal.relay.support.MessageAttributes.GROUP;
import static io.outboxer.internal.relay.support.MessageAttributes.ID;
import static io.outboxer.internal.relay.support.MessageAttributes.OUTBOX;
import static io.outboxer.internal.relay.support.MessageAttributes.TRACE_PARENT;
import static io.outboxer.internal.relay.support.MessageAttributes.TYPE;

import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.relay.support.BoundedSends;
import io.outboxer.internal.relay.support.BudgetedRelay;
import io.outboxer.internal.relay.support.Settlement;
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
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.MessageNotWriteableRuntimeException;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Sends each message as a persistent {@link TextMessage} to a JMS queue or topic, synchronously: a
 * message is confirmed when {@code send} returned. A send refused for the message itself (a {@code
 * MessageFormat} or {@code MessageNotWriteable} exception) is charged to that message and stops its
 * group; any other failure (a full queue, a missing destination, a lost connection) is the
 * destination's: the call ends there, what was sent is confirmed, and the rest waits uncharged
 * while the partition backs off. The group key travels as {@code JMSXGroupID}, so that a provider
 * that supports message groups keeps a group on one consumer, and {@code JMSXGroupSeq} increases
 * within the group (see {@link #groupSeq}).
 *
 * <p>A synchronous send has no timeout of its own, and Jakarta EE does not allow asynchronous sends
 * (a {@code CompletionListener}) in the container. So each batch is sent by a task of the executor
 * the relay was given ({@link BoundedSends}), outside any JTA transaction: the task's {@code
 * JMSContext} is not transacted, and a persistent send that returned was accepted by the provider
 * for good. The call waits for the task until its {@linkplain BudgetedRelay#deadline deadline} and
 * then reports what the task had sent by that moment: a send still under way is left unreported
 * (pending, so sent again later: it may arrive twice, never not at all), the task sends nothing
 * more, and its {@code JMSContext} is closed, which ends a blocked send in most providers. Until
 * that task has ended, the partition's next batch is refused as unavailable.
 *
 * <p>Settings ({@code outboxer.outbox.<name>.relay.jms.*}): {@code queue}, the JNDI name of the
 * queue, or {@code topic}, the JNDI name of the topic (one of them required); {@code
 * connection-factory}, the JNDI name of the connection factory (default {@value
 * #DEFAULT_CONNECTION_FACTORY}).
 */
public final class JmsRelay implements BudgetedRelay {

  public static final String DEFAULT_CONNECTION_FACTORY = "jms/outboxer/ConnectionFactory";

  private final ConnectionFactory connectionFactory;
  private final Destination destination;
  private final Duration callBudget;
  private final BoundedSends sends;

  /**
   * @param connectionFactory where connections come from
   * @param destination the queue or topic
   * @param callBudget once a batch took this long, no further message of it is sent
   * @param executor runs the sends of each batch (in the server, a managed executor)
   */
  public JmsRelay(
      ConnectionFactory connectionFactory,
      Destination destination,
      Duration callBudget,
      ExecutorService executor) {
    this.connectionFactory = connectionFactory;
    this.destination = destination;
    this.callBudget = callBudget;
    this.sends = new BoundedSends(executor, "JMS destination " + destination);
  }

  /**
   * Looks up the configured connection factory and queue or topic.
   *
   * @param callBudget once a batch took this long, no further message of it is sent
   * @param executor runs the sends of each batch (in the server, a managed executor)
   */
  public static JmsRelay create(
      OutboxConfig outbox, Duration callBudget, ExecutorService executor) {
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
        callBudget,
        executor);
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
  public Duration callBudget() {
    return callBudget;
  }

  @Override
  public DeliveryReport deliver(List<Envelope> batch, Duration timeLeft) {
    Deadline deadline = deadline(timeLeft);
    return sends.run(batch.get(0).partition(), deadline, report -> send(batch, deadline, report));
  }

  /** The task of one call: sends {@code batch} in order until it ends or the call ends. */
  private void send(List<Envelope> batch, Deadline deadline, Settlement report) {
    JMSContext opened = connectionFactory.createContext();
    if (!report.onAbandon(opened::close)) {
      opened.close();
      return;
    }
    try (JMSContext context = opened) {
      JMSProducer producer = context.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT);
      Set<String> stopped = new HashSet<>();
      for (Envelope e : batch) {
        if (deadline.passed() || report.ended()) {
          return; // the rest of the batch stays pending, its attempts not counted
        }
        if (e.orderingScope() != null && stopped.contains(e.orderingScope())) {
          continue;
        }
        try {
          producer.send(destination, toMessage(context, e));
          report.confirmed(List.of(e.id()));
        } catch (MessageFormatRuntimeException
            | MessageNotWriteableRuntimeException
            | MessageFormatException
            | MessageNotWriteableException refused) {
          report.failed(e.id(), "JMS send to " + destination + " refused the message: " + refused);
          if (e.orderingScope() != null) {
            stopped.add(e.orderingScope());
          }
        } catch (JMSRuntimeException | JMSException ex) {
          // Full, missing, unreachable: the destination's state, not the message's. What was sent
          // stays confirmed; the rest waits, uncharged, while the partition backs off.
          throw new IllegalStateException(
              "JMS destination " + destination + " did not take message " + e.id() + ": " + ex, ex);
        }
      }
    }
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
