package io.outboxer.internal.relay.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.internal.relay.support.MessageAttributes;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.Message;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JmsRelayTest {

  private static final Duration BUDGET = Duration.ofMillis(1500);

  /** What a loaded machine may add to a call that keeps its deadline. */
  private static final Duration SLACK = Duration.ofSeconds(2);

  private static final ExecutorService EXECUTOR =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "jms-relay-test");
            t.setDaemon(true);
            return t;
          });

  private final ScriptedProvider provider = new ScriptedProvider();
  private final JmsRelay relay =
      new JmsRelay(provider.factory(), provider.queue(), BUDGET, EXECUTOR);

  @AfterEach
  void releaseBlockedSends() {
    provider.release.countDown();
  }

  @Test
  void theGroupSequenceIsTheIdWhileItFitsAndStaysPositiveAfter() {
    assertThat(JmsRelay.groupSeq(1)).isEqualTo(1);
    assertThat(JmsRelay.groupSeq(42)).isEqualTo(42);
    assertThat(JmsRelay.groupSeq(Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
    assertThat(JmsRelay.groupSeq(Integer.MAX_VALUE + 1L)).isEqualTo(1);
    assertThat(JmsRelay.groupSeq(Long.MAX_VALUE)).isPositive();
  }

  @Test
  void aMessageRefusedForItsContentIsChargedAndStopsItsGroupWhileTheOtherGroupsGoOn() {
    provider.malformed.add(2L);

    DeliveryReport report =
        relay.deliver(
            List.of(message(1, "a"), message(2, "a"), message(3, "a"), message(4, "b")), BUDGET);

    assertThat(report.confirmed()).containsExactlyInAnyOrder(1L, 4L);
    assertThat(report.failed()).containsOnlyKeys(2L);
    assertThat(report.failed().get(2L))
        .isEqualTo(
            "JMS send to queue://orders refused the message:"
                + " jakarta.jms.MessageFormatRuntimeException: message 2 is malformed");
    assertThat(provider.accepted).containsExactly(1L, 4L);
  }

  /**
   * A queue that refuses a send for its own state (full, say): nothing is charged; what was sent
   * before is confirmed, and the call ends there, leaving the rest of every group pending.
   */
  @Test
  void aSendTheDestinationRefusesForItsOwnStateChargesNothingAndEndsTheCall() {
    provider.refused.add(2L);

    DeliveryReport report =
        relay.deliver(
            List.of(message(1, "a"), message(2, "b"), message(3, "a"), message(4, "c")), BUDGET);

    assertThat(report.confirmed()).containsExactly(1L);
    assertThat(report.failed()).as("nothing charged").isEmpty();
    assertThat(provider.accepted).containsExactly(1L);
  }

  @Test
  void aDestinationThatRefusesTheFirstSendIsUnavailable() {
    provider.refused.add(1L);

    assertThatThrownBy(() -> relay.deliver(List.of(message(1, "a"), message(2, "b")), BUDGET))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "JMS destination queue://orders did not take message 1:"
                + " jakarta.jms.JMSRuntimeException: the queue refused message 1");
    assertThat(provider.accepted).isEmpty();
  }

  /**
   * A queue whose send blocks (a provider that stopped answering): the call returns within its
   * deadline with what was sent before, the blocked message and the rest unreported (pending,
   * uncharged), and the context is closed, which ends the blocked send; the next batch is sent.
   */
  @Test
  void aSendThatBlocksEndsTheCallWithinItsDeadlineAndChargesNothing() throws Exception {
    provider.blockOn.add(2L);
    List<Envelope> batch = List.of(message(1, "a"), message(2, "b"), message(3, "c"));

    long started = System.nanoTime();
    DeliveryReport report = relay.deliver(batch, BUDGET);
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isLessThan(BUDGET.plus(SLACK));
    assertThat(report.confirmed()).containsExactly(1L);
    assertThat(report.failed()).as("nothing charged").isEmpty();
    assertThat(provider.blockedSendReturned.await(10, TimeUnit.SECONDS))
        .as("closing the context ended the blocked send")
        .isTrue();
    assertThat(provider.sends).as("nothing sent after the blocked one").hasValue(2);

    provider.blockOn.clear();
    DeliveryReport next = awaitSendingAgain(List.of(message(2, "b"), message(3, "c")));
    assertThat(next.confirmed()).containsExactlyInAnyOrder(2L, 3L);
    assertThat(provider.accepted).containsExactly(1L, 2L, 3L);
  }

  /**
   * A send that stays blocked after its context was closed: the call ends at its deadline saying
   * the destination is unavailable (nothing settled, nothing charged), and the partition's next
   * batch is refused likewise until that send returns, so that this server never has two sends of
   * one partition under way.
   */
  @Test
  void aSendStillBlockedAfterItsDeadlineHoldsThePartitionsNextBatchBack() throws Exception {
    provider.blockOn.add(1L);
    provider.ignoresClose = true;
    List<Envelope> batch = List.of(message(1, "a"), message(2, "b"));

    long started = System.nanoTime();
    assertThatThrownBy(() -> relay.deliver(batch, BUDGET))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "JMS destination queue://orders did not answer by the call's deadline; nothing of the"
                + " batch was settled and the send under way was abandoned");
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isLessThan(BUDGET.plus(SLACK));
    assertThat(provider.accepted).isEmpty();
    assertThat(provider.contextClosed.await(10, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> relay.deliver(batch, BUDGET))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("still blocked");
    assertThat(provider.sends).hasValue(1);

    provider.release.countDown();
    assertThat(provider.blockedSendReturned.await(10, TimeUnit.SECONDS)).isTrue();
    provider.blockOn.clear();
    assertThat(awaitSendingAgain(batch).confirmed()).containsExactlyInAnyOrder(1L, 2L);
  }

  /** The relay's answer once the task of the blocked send has ended (it ends just after it). */
  private DeliveryReport awaitSendingAgain(List<Envelope> batch) throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      try {
        return relay.deliver(batch, BUDGET);
      } catch (IllegalStateException stillBlocked) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("the relay still refuses the partition's batches");
  }

  private static Envelope message(long id, String group) {
    return new Envelope(id, "orders", 0, group, "Order", "{}", 1, group);
  }

  /**
   * A JMS provider scripted through proxies of the Jakarta Messaging interfaces. A send of an id in
   * {@link #blockOn} blocks until its context is closed and then fails as a closed context's send
   * does, or, when {@link #ignoresClose}, until {@link #release}; a send of an id in {@link
   * #refused} fails as a full queue's does, one in {@link #malformed} as a message the provider
   * cannot take does; every other send is accepted.
   */
  private static final class ScriptedProvider {
    final Set<Long> blockOn = ConcurrentHashMap.newKeySet();
    final Set<Long> refused = ConcurrentHashMap.newKeySet();
    final Set<Long> malformed = ConcurrentHashMap.newKeySet();
    final List<Long> accepted = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger sends = new AtomicInteger();
    final CountDownLatch contextClosed = new CountDownLatch(1);
    final CountDownLatch blockedSendReturned = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    volatile boolean ignoresClose;

    Queue queue() {
      return proxy(
          Queue.class,
          (p, m, a) -> m.getName().equals("toString") ? "queue://orders" : defaultValue(m, p, a));
    }

    ConnectionFactory factory() {
      return proxy(
          ConnectionFactory.class,
          (p, m, a) -> m.getName().equals("createContext") ? context() : defaultValue(m, p, a));
    }

    private JMSContext context() {
      CountDownLatch closed = new CountDownLatch(1);
      JMSProducer[] producer = new JMSProducer[1];
      producer[0] =
          proxy(
              JMSProducer.class,
              (p, m, a) -> {
                if (m.getName().equals("send")) {
                  send((Message) a[1], closed);
                  return p;
                }
                return m.getReturnType() == JMSProducer.class ? p : defaultValue(m, p, a);
              });
      return proxy(
          JMSContext.class,
          (p, m, a) ->
              switch (m.getName()) {
                case "createProducer" -> producer[0];
                case "createTextMessage" -> textMessage();
                case "close" -> {
                  closed.countDown();
                  contextClosed.countDown();
                  yield null;
                }
                default -> defaultValue(m, p, a);
              });
    }

    private void send(Message message, CountDownLatch closed) throws Exception {
      sends.incrementAndGet();
      long id = message.getLongProperty(MessageAttributes.ID);
      if (blockOn.contains(id)) {
        boolean ended = ignoresClose ? awaitRelease() : closed.await(1, TimeUnit.MINUTES);
        blockedSendReturned.countDown();
        throw new JMSRuntimeException(
            ended ? "the connection was closed" : "the test never ended the send");
      }
      if (refused.contains(id)) {
        throw new JMSRuntimeException("the queue refused message " + id);
      }
      if (malformed.contains(id)) {
        throw new MessageFormatRuntimeException("message " + id + " is malformed");
      }
      accepted.add(id);
    }

    private boolean awaitRelease() throws InterruptedException {
      return release.await(1, TimeUnit.MINUTES);
    }

    private static TextMessage textMessage() {
      Map<String, Object> properties = new HashMap<>();
      return proxy(
          TextMessage.class,
          (p, m, a) -> {
            String name = m.getName();
            if (name.startsWith("set") && name.endsWith("Property")) {
              properties.put((String) a[0], a[1]);
              return null;
            }
            if (name.equals("getLongProperty")) {
              return properties.get((String) a[0]);
            }
            return defaultValue(m, p, a);
          });
    }

    private static Object defaultValue(java.lang.reflect.Method m, Object proxy, Object[] args) {
      return switch (m.getName()) {
        case "hashCode" -> System.identityHashCode(proxy);
        case "equals" -> proxy == args[0];
        case "toString" -> m.getDeclaringClass().getSimpleName() + " proxy";
        default -> {
          if (m.getReturnType() == boolean.class) {
            yield false;
          }
          if (m.getReturnType().isPrimitive() && m.getReturnType() != void.class) {
            yield 0;
          }
          yield null;
        }
      };
    }

    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
      return type.cast(
          Proxy.newProxyInstance(
              JmsRelayTest.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
  }
}
