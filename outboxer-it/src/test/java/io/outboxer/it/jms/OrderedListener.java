package io.outboxer.it.jms;

import jakarta.ejb.MessageDriven;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The job-queue consumer of the JMS relay: a message-driven bean whose activation spec (in the test
 * server's configuration) allows one instance at a time. It keeps what it consumed, in order, and
 * the most instances that ever ran at once.
 */
@MessageDriven(name = "OrderedListener")
public class OrderedListener implements MessageListener {

  /** One consumed message: its outbox id, group and {@code JMSXGroupSeq}. */
  public record Consumed(long id, String group, int groupSeq) {}

  private static final List<Consumed> CONSUMED = new ArrayList<>();
  private static final AtomicInteger RUNNING = new AtomicInteger();
  private static final AtomicInteger MOST_RUNNING = new AtomicInteger();

  @Override
  public void onMessage(Message message) {
    MOST_RUNNING.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
    try {
      Consumed consumed =
          new Consumed(
              message.getLongProperty("OutboxerId"),
              message.getStringProperty("JMSXGroupID"),
              message.getIntProperty("JMSXGroupSeq"));
      synchronized (CONSUMED) {
        CONSUMED.add(consumed);
      }
    } catch (JMSException e) {
      throw new IllegalStateException(e);
    } finally {
      RUNNING.decrementAndGet();
    }
  }

  /** Everything consumed so far, in the order the listener ran. */
  public static List<Consumed> consumed() {
    synchronized (CONSUMED) {
      return List.copyOf(CONSUMED);
    }
  }

  public static int mostRunningAtOnce() {
    return MOST_RUNNING.get();
  }
}
