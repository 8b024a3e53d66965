package io.outboxer.internal.relay.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.TestOutboxes;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.OrderingScope;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaRelayTest {

  private static final Duration BUDGET = Duration.ofMillis(1500);

  /** What a loaded machine may add to a call that keeps its deadline. */
  private static final Duration SLACK = Duration.ofSeconds(2);

  private static final ExecutorService EXECUTOR =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "kafka-relay-test");
            t.setDaemon(true);
            return t;
          });

  private static Properties producerProperties(Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(extra);
    settings.put("topic", "orders");
    settings.put("bootstrap.servers", "127.0.0.1:9092");
    OutboxConfig outbox = TestOutboxes.orders("kafka", settings);
    try (KafkaRelay relay = KafkaRelay.create(outbox, Duration.ofSeconds(10), EXECUTOR)) {
      return relay.producerProperties();
    }
  }

  @Test
  void theProducerIsIdempotentAndItsTimeoutsFollowTheCallBudget() {
    Properties p = producerProperties(Map.of("compression.type", "zstd"));

    assertThat(p)
        .containsEntry("enable.idempotence", "true")
        .containsEntry("acks", "all")
        .containsEntry("max.in.flight.requests.per.connection", "5")
        .containsEntry("delivery.timeout.ms", "10000")
        .containsEntry("request.timeout.ms", "5000")
        .containsEntry("max.block.ms", "5000")
        .containsEntry("compression.type", "zstd")
        .containsEntry("bootstrap.servers", "127.0.0.1:9092")
        .doesNotContainKeys("topic", "transactional-id-prefix");
  }

  @Test
  void timeoutsTheConfigurationSetsAreLeftAsTheyAre() {
    Properties p = producerProperties(Map.of("request.timeout.ms", "30000"));

    assertThat(p)
        .containsEntry("request.timeout.ms", "30000")
        .doesNotContainKeys("delivery.timeout.ms", "max.block.ms");
  }

  /**
   * {@code max.block.ms} 0 would make each commit give up at once and the relay resume it without a
   * pause until the deadline: refused when the relay is made, naming the key.
   */
  @Test
  void aMaxBlockOfZeroIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> producerProperties(Map.of("max.block.ms", "0")))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1001 invalid configuration outboxer.outbox.orders.relay.kafka.max.block.ms=0:"
                + " expected a whole number of milliseconds, at least 1: the relay waits up to it"
                + " for each of Kafka's answers");
    assertThat(producerProperties(Map.of("max.block.ms", "250")))
        .containsEntry("max.block.ms", "250");
  }

  /**
   * A broker that takes the connection and never answers, with a producer configured to wait a
   * minute for it: the call still ends within its budget, saying Kafka is unavailable and charging
   * no message, while the producer waits in {@code initTransactions}.
   */
  @Test
  void aBatchToABrokerThatNeverAnswersEndsWithinTheCallBudgetWhateverTheProducersTimeouts()
      throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Map<String, String> settings = new HashMap<>();
      settings.put("topic", "orders");
      settings.put("bootstrap.servers", "127.0.0.1:" + silent.getLocalPort());
      settings.put("max.block.ms", "60000");
      settings.put("request.timeout.ms", "60000");
      settings.put("delivery.timeout.ms", "120000");

      // The producer is made in the call, the first in this JVM: a longer budget leaves time for
      // that, and a minute's wait would still overrun it.
      Duration budget = Duration.ofSeconds(3);
      try (KafkaRelay relay =
          KafkaRelay.create(TestOutboxes.orders("kafka", settings), budget, EXECUTOR)) {
        long started = System.nanoTime();
        assertThatThrownBy(() -> relay.deliver(batch(3), budget))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage(
                "Kafka topic orders did not answer by the call's deadline; nothing of the batch was"
                    + " settled and the send under way was abandoned");
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(took).isLessThan(budget.plus(SLACK));
      }
    }
  }

  /**
   * A topic that does not exist: the producer waits for its metadata in {@code send} (up to {@code
   * max.block.ms}, a minute here). The call returns at its deadline saying Kafka is unavailable,
   * having charged nothing; the producer is closed at once, which ends the wait, and the next batch
   * gets a new producer.
   */
  @Test
  void aBatchToATopicThatDoesNotExistEndsWithinItsDeadlineAndReplacesTheProducer()
      throws Exception {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> p.metadataNeverComes = made.isEmpty());

    long started = System.nanoTime();
    assertThatThrownBy(() -> relay.deliver(batch(3), BUDGET))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("did not answer by the call's deadline");
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isLessThan(BUDGET.plus(SLACK));
    ScriptedProducer first = made.get(0);
    assertThat(first.closed.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(first.closedWith).as("closed at once").isEqualTo(Duration.ZERO);
    assertThat(first.sendCalls).as("no send after the one that waited").isEqualTo(1);
    assertThat(first.history()).isEmpty();

    DeliveryReport next = awaitSendingAgain(relay, batch(3));
    assertThat(made).hasSize(2);
    assertThat(made.get(1).transactionInitialized()).isTrue();
    assertThat(next.confirmed()).containsExactlyInAnyOrder(1L, 2L, 3L);
  }

  /**
   * The broker takes the records but does not answer the commit: at the deadline the producer is
   * closed; nothing of that transaction is reported, while the record Kafka refused for its size in
   * an earlier transaction of the call stays charged to that record alone.
   */
  @Test
  void aCommitThatNeverReturnsLeavesItsRecordsUnreportedAndARefusalCharged() throws Exception {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay =
        relay(
            made,
            p -> {
              p.tooLarge = 2;
              p.commitNeverReturns = true;
            });

    long started = System.nanoTime();
    DeliveryReport report = relay.deliver(batch(3), BUDGET);
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isLessThan(BUDGET.plus(SLACK));
    assertThat(report.confirmed()).isEmpty();
    assertThat(report.failed()).containsOnlyKeys(2L);
    assertThat(report.failed().get(2L)).contains("RecordTooLargeException");
    assertThat(made).hasSize(1);
    assertThat(made.get(0).closed.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(made.get(0).closedWith).isEqualTo(Duration.ZERO);
    assertThat(made.get(0).transactionCommitted()).isFalse();
  }

  /**
   * The broker refuses a record that the producer took (too large for the topic, say): the commit
   * fails, the transaction is aborted, and that record alone is charged; the others of the batch
   * are committed in the next transaction, with the same producer.
   */
  @Test
  void aRecordTheBrokerRefusesFailsTheCommitAndIsChargedAlone() {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> p.refusedByBroker = 2);

    DeliveryReport report = relay.deliver(batch(3), BUDGET);

    assertThat(report.confirmed()).containsExactly(1L, 3L);
    assertThat(report.failed()).containsOnlyKeys(2L);
    assertThat(report.failed().get(2L))
        .isEqualTo(
            "Kafka refused the record: org.apache.kafka.common.errors.RecordTooLargeException:"
                + " the broker refused record 2");
    assertThat(made).hasSize(1);
    assertThat(made.get(0).commitCount()).isEqualTo(1);
    assertThat(made.get(0).history())
        .extracting(r -> new String(r.headers().lastHeader(KafkaRelay.ID).value(), UTF_8))
        .containsExactly("1", "3");
    assertThat(made.get(0).closedWith).isNull();
  }

  /**
   * The broker refuses one record of a produce batch with an error of its own (INVALID_RECORD with
   * record errors), and Kafka fails a record that was still waiting to be sent with the
   * transaction's error, which it alone holds too: neither is charged until the rounds pinned the
   * refusal to its record, then only that one; the waiting record is committed with the rest.
   */
  @Test
  void aRecordThatFailsWithTheTransactionsErrorIsNotCharged() {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay =
        relay(
            made,
            p -> {
              p.refusedByBroker = 2;
              p.refusedWithRecordError = true;
              p.notYetSent = 3;
            });

    DeliveryReport report = relay.deliver(batch(3), BUDGET);

    assertThat(report.confirmed()).containsExactly(1L, 3L);
    assertThat(report.failed()).containsOnlyKeys(2L);
    assertThat(report.failed().get(2L))
        .isEqualTo(
            "Kafka refused the record: org.apache.kafka.common.InvalidRecordException:"
                + " record 2 is invalid");
    assertThat(made).hasSize(1);
    assertThat(made.get(0).commitCount()).isEqualTo(2);
    assertThat(made.get(0).history())
        .extracting(r -> new String(r.headers().lastHeader(KafkaRelay.ID).value(), UTF_8))
        .containsExactly("1", "3");
  }

  /**
   * On a loaded machine the producer's network thread can send a record and have the broker's
   * acknowledgement before the relay's thread looks at the record's future: a future that is done
   * and succeeded is no refusal, and the rest of the batch is still sent in the same transaction
   * (before, the relay stopped sending there and committed, reporting records it never sent).
   */
  @Test
  void aRecordAcknowledgedBeforeTheRelayLooksDoesNotEndTheTransaction() {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> p.acknowledgedAtSend = 1);

    DeliveryReport report = relay.deliver(batch(3), BUDGET);

    assertThat(made.get(0).history())
        .extracting(r -> new String(r.headers().lastHeader(KafkaRelay.ID).value(), UTF_8))
        .containsExactly("1", "2", "3");
    assertThat(report.confirmed()).containsExactly(1L, 2L, 3L);
    assertThat(report.failed()).isEmpty();
    assertThat(made.get(0).commitCount()).isEqualTo(1);
  }

  /**
   * Acknowledgements slower than {@code max.block.ms}: {@code commitTransaction} gives up waiting
   * with a {@code TimeoutException}, and the relay takes up the same commit again within the call's
   * deadline instead of counting the batch as an outage.
   */
  @Test
  void aCommitThatOutwaitsMaxBlockIsResumedWithinTheDeadline() {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> p.commitTimeouts = 2);

    DeliveryReport report = relay.deliver(batch(3), BUDGET);

    assertThat(report.confirmed()).containsExactly(1L, 2L, 3L);
    assertThat(report.failed()).isEmpty();
    assertThat(made).hasSize(1);
    assertThat(made.get(0).commitCount()).isEqualTo(1);
    assertThat(made.get(0).closedWith).isNull();
  }

  /**
   * A commit that fails with no record to blame (the producer was fenced by a newer one with its
   * transactional id): nothing is charged or confirmed, the producer is closed, and the next call
   * starts a new one.
   */
  @Test
  void aFencedCommitChargesNothingAndReplacesTheProducer() {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> p.fencedAtCommit = made.isEmpty());

    assertThatThrownBy(() -> relay.deliver(batch(2), BUDGET))
        .isInstanceOf(KafkaUnavailableException.class)
        .hasMessageContaining("Kafka failed the transaction")
        .hasMessageContaining("ProducerFencedException");

    assertThat(made.get(0).closedWith).isEqualTo(Duration.ZERO);
    assertThat(made.get(0).transactionCommitted()).isFalse();
    assertThat(relay.deliver(batch(2), BUDGET).confirmed()).containsExactly(1L, 2L);
    assertThat(made).hasSize(2);
  }

  /**
   * A coordinator slow to answer {@code initTransactions}: the call ends at its deadline, having
   * charged nothing, and the producer, which opened no transaction, is let start and kept: the next
   * call sends with it rather than starting another one.
   */
  @Test
  void aProducerThatStartsAfterTheDeadlineServesTheNextCall() throws Exception {
    CountDownLatch coordinatorAnswers = new CountDownLatch(1);
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> p.initUntil = coordinatorAnswers);

    long started = System.nanoTime();
    assertThatThrownBy(() -> relay.deliver(batch(2), BUDGET))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("did not answer by the call's deadline");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(BUDGET.plus(SLACK));

    coordinatorAnswers.countDown();
    DeliveryReport next = awaitSendingAgain(relay, batch(2));
    assertThat(next.confirmed()).containsExactlyInAnyOrder(1L, 2L);
    assertThat(made).hasSize(1);
    assertThat(made.get(0).closedWith).isNull();
  }

  @Test
  void aBatchThatEndsInTimeKeepsItsProducerForTheNext() {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> {});

    assertThat(relay.deliver(batch(2), BUDGET).confirmed()).containsExactlyInAnyOrder(1L, 2L);
    assertThat(relay.deliver(batch(3), BUDGET).confirmed()).containsExactlyInAnyOrder(1L, 2L, 3L);

    assertThat(made).hasSize(1);
    assertThat(made.get(0).commitCount()).isEqualTo(2);
    assertThat(made.get(0).closedWith).isNull();
  }

  /** The relay's answer once the task it abandoned has ended (it ends just after its producer). */
  private static DeliveryReport awaitSendingAgain(KafkaRelay relay, List<Envelope> batch)
      throws InterruptedException {
    for (int i = 0; i < 100; i++) {
      try {
        return relay.deliver(batch, BUDGET);
      } catch (IllegalStateException stillBlocked) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("the relay still refuses the partition's batches");
  }

  /**
   * Kafka keeps order within a topic partition only: the records of a total-order outbox all go to
   * the first, whatever their keys; the others go where the producer's partitioner puts their key.
   */
  @Test
  void aTotalOrderOutboxsRecordsAllGoToTheFirstTopicPartition() {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> {});
    List<Envelope> total =
        LongStream.rangeClosed(1, 3)
            .mapToObj(
                id ->
                    new Envelope(
                        id,
                        "orders",
                        0,
                        "g" + id,
                        "T",
                        "{}",
                        1,
                        OrderingScope.of(Ordering.TOTAL, "g" + id)))
            .toList();

    assertThat(relay.deliver(total, BUDGET).confirmed()).containsExactly(1L, 2L, 3L);
    assertThat(relay.deliver(batch(2), BUDGET).confirmed()).containsExactly(1L, 2L);

    assertThat(made.get(0).history())
        .extracting(ProducerRecord::partition)
        .containsExactly(0, 0, 0, null, null);
    assertThat(made.get(0).history())
        .extracting(ProducerRecord::key)
        .containsExactly("g1", "g2", "g3", "g1", "g2");
  }

  /**
   * A transaction that cannot commit within the call's budget (a slow broker, too many records):
   * the partition's next call sends the first half of the batch, and after it committed, the whole
   * batch again. The records not sent stay pending, uncharged.
   */
  @Test
  void aBatchThatCouldNotCommitInTimeIsSentInHalvesUntilACommitSucceeds() {
    List<ScriptedProducer> made = new CopyOnWriteArrayList<>();
    KafkaRelay relay = relay(made, p -> p.commitNeverReturns = made.isEmpty());
    List<Envelope> batch = batch(8);

    assertThatThrownBy(() -> relay.deliver(batch, BUDGET))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("did not answer by the call's deadline");
    // The abandoned call's task ends once its producer is closed; until then the partition's calls
    // are refused.
    DeliveryReport half =
        await()
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .until(() -> relay.deliver(batch, BUDGET), r -> !r.confirmed().isEmpty());
    DeliveryReport whole = relay.deliver(batch, BUDGET);

    assertThat(half.confirmed()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(half.failed()).isEmpty();
    assertThat(whole.confirmed())
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 8).boxed().toList());
    assertThat(made.get(0).sendCalls).as("the call that timed out").isEqualTo(8);
    assertThat(made.get(1).history())
        .extracting(r -> new String(r.headers().lastHeader(KafkaRelay.ID).value(), UTF_8))
        .containsExactly("1", "2", "3", "4", "1", "2", "3", "4", "5", "6", "7", "8");
  }

  /** A relay whose producers are scripted by {@code script}, each added to {@code made}. */
  private static KafkaRelay relay(List<ScriptedProducer> made, Consumer<ScriptedProducer> script) {
    IntFunction<Producer<String, String>> producers =
        partition -> {
          ScriptedProducer p = new ScriptedProducer();
          script.accept(p);
          made.add(p);
          return p;
        };
    return new KafkaRelay("orders", new Properties(), producers, BUDGET, EXECUTOR);
  }

  /** Messages 1..n, each of its own group. */
  private static List<Envelope> batch(int n) {
    return LongStream.rangeClosed(1, n)
        .mapToObj(id -> new Envelope(id, "orders", 0, "g" + id, "T", "{}", 1, "g" + id))
        .toList();
  }

  /**
   * A producer scripted to wait the way a real one does: for the coordinator in {@code
   * initTransactions} until {@link #initUntil}; for a topic's metadata in {@code send} or the
   * coordinator in {@code commitTransaction} until the producer is closed, then failing with the
   * exception Kafka's producer throws then. A record with id {@link #tooLarge} is refused at send
   * for its size, one with id {@link #refusedByBroker} by the broker, which fails the commit (with
   * {@link #refusedWithRecordError}, a record error of its own, and the record with id {@link
   * #notYetSent} fails with the transaction's error, as a batch not yet sent does); the others are
   * acknowledged when the transaction ends, after {@code send} returned, as a real producer's are.
   * With {@link #fencedAtCommit} a newer producer fences this one before its commit; the first
   * {@link #commitTimeouts} commits give up waiting, as at {@code max.block.ms}. The record with id
   * {@link #acknowledgedAtSend} is acknowledged before {@code send} returns, as a loaded machine
   * can make a real producer's look.
   */
  private static final class ScriptedProducer extends MockProducer<String, String> {
    private final CountDownLatch closed = new CountDownLatch(1);
    volatile Duration closedWith;
    volatile int sendCalls;
    boolean metadataNeverComes;
    boolean commitNeverReturns;
    boolean fencedAtCommit;
    int commitTimeouts;
    long refusedByBroker;
    boolean refusedWithRecordError;
    long notYetSent;
    private final List<Long> inFlight = new ArrayList<>();
    CountDownLatch initUntil = new CountDownLatch(0);
    long tooLarge;
    long acknowledgedAtSend;

    ScriptedProducer() {
      super(false, null, new StringSerializer(), new StringSerializer()); // acknowledged at the end
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<String, String> r, Callback callback) {
      sendCalls++;
      if (metadataNeverComes) {
        waitUntilClosed("Requested metadata update after close");
      }
      String id = new String(r.headers().lastHeader(KafkaRelay.ID).value(), UTF_8);
      if (Long.parseLong(id) == tooLarge) {
        return CompletableFuture.failedFuture(
            new RecordTooLargeException("record " + id + " is too large"));
      }
      inFlight.add(Long.parseLong(id));
      Future<RecordMetadata> sent = super.send(r, callback);
      if (Long.parseLong(id) == acknowledgedAtSend) {
        completeNext();
      }
      return sent;
    }

    @Override
    public void initTransactions() {
      try {
        if (!initUntil.await(1, TimeUnit.MINUTES)) {
          throw new AssertionError("the coordinator never answered");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      super.initTransactions();
    }

    @Override
    public void commitTransaction() {
      if (commitNeverReturns) {
        waitUntilClosed("The producer closed forcefully");
      }
      if (fencedAtCommit) {
        fenceProducer();
      }
      if (commitTimeouts > 0) {
        commitTimeouts--;
        throw new TimeoutException("Timeout expired after 5000ms while awaiting EndTxn(true)");
      }
      if (inFlight.contains(refusedByBroker)) {
        // As Kafka's producer does: the broker's answers complete the sends, and the refusal
        // puts the transaction in an error state that fails the commit. A refusal with record
        // errors gives the refused record an exception of its own; the batches not yet sent fail
        // with the transaction's error.
        RuntimeException transactionError =
            refusedWithRecordError
                ? new InvalidRecordException("one or more records have been rejected")
                : new RecordTooLargeException("the broker refused record " + refusedByBroker);
        for (long id : inFlight) {
          if (id == refusedByBroker) {
            errorNext(
                refusedWithRecordError
                    ? new InvalidRecordException("record " + id + " is invalid")
                    : transactionError);
          } else if (id == notYetSent) {
            errorNext(transactionError);
          } else {
            completeNext();
          }
        }
        inFlight.clear();
        throw transactionError; // as Kafka's does when the batch failed after the commit began
      }
      inFlight.clear();
      super.commitTransaction();
    }

    private void waitUntilClosed(String message) {
      try {
        if (!closed.await(1, TimeUnit.MINUTES)) {
          throw new AssertionError("the producer was not closed");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new KafkaException(message);
    }

    @Override
    public void abortTransaction() {
      inFlight.clear();
      super.abortTransaction();
    }

    @Override
    public void close(Duration timeout) {
      closedWith = timeout;
      closed.countDown();
      super.close(timeout);
    }
  }
}
