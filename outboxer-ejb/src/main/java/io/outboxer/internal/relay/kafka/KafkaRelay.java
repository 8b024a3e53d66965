package io.outboxer.internal.relay.kafka;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.relay.support.BoundedSends;
import io.outboxer.internal.relay.support.BudgetedRelay;
import io.outboxer.internal.relay.support.CallSizes;
import io.outboxer.internal.relay.support.MessageAttributes;
import io.outboxer.internal.relay.support.Settlement;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.internal.rules.OrderingScope;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends each batch to a Kafka topic in one Kafka transaction: record key = group key (null when
 * ungrouped), topic partition 0 for every record of a total-order outbox, value = the JSON payload,
 * headers {@value #ID}, {@value #OUTBOX}, {@value #TYPE}, {@value #ATTEMPT}, and {@value
 * #TRACE_PARENT} for a message published inside a trace. A message counts as confirmed only when
 * the transaction holding it committed, so consumers reading committed data never see a message
 * behind a failed one of its group (ADR 0004). A message is charged only for its own refusal (a
 * record too large for the producer or the topic, say): {@link TransactionRounds} pins a refusal to
 * its record and sends the rest of the batch again in new transactions; a batch that fails for any
 * other reason charges nothing. After a transaction that could not commit by the call's deadline,
 * the partition's calls send smaller parts of their batches for a while ({@link CallSizes}).
 *
 * <p>One transactional producer per partition of the outbox, with the transactional id {@code
 * <prefix><outbox>-<partition>}: a partition has one worker in the cluster, and a worker that lost
 * its lease is fenced by Kafka too when the new owner's producer starts. Producers are idempotent
 * with {@code acks=all} and at most 5 requests in flight; every other producer property comes from
 * {@code outboxer.outbox.<name>.relay.kafka.*} ({@code bootstrap.servers} required, {@code topic}
 * required, {@code transactional-id-prefix} default {@code outboxer-}).
 *
 * <p>Each call ends by its {@linkplain BudgetedRelay#deadline deadline}, whatever the broker does:
 * the sends run as a task ({@link BoundedSends}) that starts no record and no transaction after it,
 * and the call returns at it with what was committed by then. A producer still waiting then in a
 * transaction (for metadata in {@code send}, acknowledgements or the coordinator in {@code
 * commitTransaction} or {@code abortTransaction}) is closed at once and not used again; what it had
 * not committed stays unreported: pending, uncharged. A new producer still in {@code
 * initTransactions} is let finish (no transaction is open yet) and kept for the next call. After a
 * producer was closed, the partition's next call, once the old task has ended, starts a new one,
 * whose {@code initTransactions} fences the old one and ends its open transaction (committed or
 * aborted, never half). A producer that failed outside a record's refusal (fenced, in an error
 * state) is replaced the same way. Unless the configuration sets one of them, {@code
 * delivery.timeout.ms} is the call budget and {@code request.timeout.ms} and {@code max.block.ms}
 * half of it, which bounds how long a closed producer's network thread keeps an abandoned task
 * alive.
 */
public final class KafkaRelay implements BudgetedRelay {

  public static final String ID = "outboxer-id";
  public static final String OUTBOX = "outboxer-outbox";
  public static final String TYPE = "outboxer-type";
  public static final String ATTEMPT = "outboxer-attempt";

  /** The W3C trace context of the publishing span, for messages published inside a trace. */
  public static final String TRACE_PARENT = MessageAttributes.TRACE_PARENT;

  private static final Logger LOG = Logger.getLogger(KafkaRelay.class.getName());

  /**
   * The refusals of one record for its own content: too large for the producer or the topic,
   * invalid for the topic (a compacted topic needs a key), unreadable. Every other failure is the
   * transaction's or the destination's, and never charged to a message.
   */
  private static final List<Class<? extends Throwable>> RECORD_REFUSALS =
      List.of(
          RecordTooLargeException.class,
          RecordBatchTooLargeException.class,
          InvalidRecordException.class,
          CorruptRecordException.class,
          SerializationException.class);

  /** The producer's timeouts, derived from the call budget unless the configuration sets one. */
  private static final List<String> TIMEOUTS =
      List.of(
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
          ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
          ProducerConfig.MAX_BLOCK_MS_CONFIG);

  private final String topic;
  private final Properties producerProperties;
  private final IntFunction<Producer<String, String>> newProducer;
  private final Duration callBudget;
  private final BoundedSends sends;

  /** How many records of a batch each partition's call sends. */
  private final CallSizes sizes = new CallSizes();

  /** The producers that started their transactions, by partition. */
  private final Map<Integer, Producer<String, String>> producers = new ConcurrentHashMap<>();

  private volatile boolean closed;

  /**
   * @param properties the producer properties in force
   * @param newProducer makes the transactional producer of a partition, not yet initialized
   * @param executor runs the sends of each call (in the server, a managed executor)
   */
  KafkaRelay(
      String topic,
      Properties properties,
      IntFunction<Producer<String, String>> newProducer,
      Duration callBudget,
      ExecutorService executor) {
    this.topic = topic;
    this.producerProperties = properties;
    this.newProducer = newProducer;
    this.callBudget = callBudget;
    this.sends = new BoundedSends(executor, "Kafka topic " + topic);
  }

  /**
   * Reads the relay's settings; the producers connect at their first batch.
   *
   * @param executor runs the sends of each call (in the server, a managed executor)
   */
  public static KafkaRelay create(
      OutboxConfig outbox, Duration callBudget, ExecutorService executor) {
    String topic = outbox.requiredRelaySetting("topic", "the topic the Kafka relay sends to");
    outbox.requiredRelaySetting(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "the Kafka brokers to connect to");
    Map<String, String> settings = new HashMap<>(outbox.relaySettings());
    String maxBlock = settings.get(ProducerConfig.MAX_BLOCK_MS_CONFIG);
    if (maxBlock != null && !maxBlock.trim().matches("0*[1-9][0-9]{0,17}")) {
      // 0 would make each commit give up at once and the relay take it up again without a pause
      throw outbox.invalidRelaySetting(
          ProducerConfig.MAX_BLOCK_MS_CONFIG,
          "expected a whole number of milliseconds, at least 1: the relay waits up to it for each"
              + " of Kafka's answers");
    }
    settings.remove("topic");
    String prefix = settings.remove("transactional-id-prefix");
    Properties properties = new Properties();
    properties.putAll(settings);
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    if (TIMEOUTS.stream().noneMatch(properties::containsKey)) {
      long budget = callBudget.toMillis();
      properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(budget));
      properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(budget / 2));
      properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(budget / 2));
    }
    String transactionalIdBase = (prefix == null ? "outboxer-" : prefix) + outbox.name() + "-";
    return new KafkaRelay(
        topic,
        properties,
        partition -> {
          Properties own = new Properties();
          own.putAll(properties);
          own.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalIdBase + partition);
          return new KafkaProducer<>(own, new StringSerializer(), new StringSerializer());
        },
        callBudget,
        executor);
  }

  @Override
  public Duration callBudget() {
    return callBudget;
  }

  /** The producer properties in force (for tests). */
  Properties producerProperties() {
    return producerProperties;
  }

  /**
   * Sends the batch, or the first part of it that the partition's {@linkplain CallSizes call size}
   * allows after a transaction that could not commit within a call's budget (its records all sent,
   * the commit still waiting at the deadline); the rest stays pending.
   */
  @Override
  public DeliveryReport deliver(List<Envelope> batch, Duration timeLeft) {
    Deadline deadline = deadline(timeLeft);
    int partition = batch.get(0).partition();
    List<Envelope> part = batch.subList(0, sizes.limit(partition, batch.size()));
    AtomicBoolean committing = new AtomicBoolean();
    DeliveryReport report;
    try {
      report = sends.run(partition, deadline, r -> send(part, partition, deadline, committing, r));
    } catch (RuntimeException unavailable) {
      sizes.ended(partition, part.size(), 0, deadline.passed() && committing.get());
      throw unavailable;
    }
    sizes.ended(
        partition,
        part.size(),
        report.confirmed().size() + report.failed().size(),
        deadline.passed() && committing.get());
    return report;
  }

  /**
   * The task of one call: sends {@code batch} with the partition's producer, or a new one, and
   * keeps the producer for the next call unless it failed or the call was abandoned while it had a
   * transaction open. A new producer's {@code initTransactions} is let finish (within {@code
   * max.block.ms}) even when the call is abandoned meanwhile: no transaction is open yet, and a
   * producer that started late serves the next call, instead of each call starting one anew on a
   * slow coordinator.
   */
  private void send(
      List<Envelope> batch,
      int partition,
      Deadline deadline,
      AtomicBoolean committing,
      Settlement report) {
    Producer<String, String> known = producers.remove(partition);
    Producer<String, String> producer = known != null ? known : newProducer.apply(partition);
    if (known == null) {
      try {
        producer.initTransactions();
      } catch (RuntimeException e) {
        closeNow(producer);
        throw new KafkaUnavailableException("the producer could not start: " + e);
      }
    }
    if (!report.onAbandon(() -> closeNow(producer))) {
      keep(partition, producer); // abandoned before its first transaction
      return;
    }
    AtomicBoolean failed = new AtomicBoolean();
    try {
      TransactionRounds.deliver(
          batch,
          records -> {
            try {
              return sendInTransaction(producer, records, deadline, committing);
            } catch (RuntimeException e) {
              // Fenced, closed at the deadline or in an error state: the transaction's outcome is
              // not known and no record is to blame. The producer is not used again.
              failed.set(true);
              return TransactionRounds.Round.unavailable(
                  records, "Kafka failed the transaction: " + e);
            }
          },
          deadline,
          report);
    } finally {
      if (failed.get() || !report.unlessEnded(() -> keep(partition, producer))) {
        closeNow(producer); // the next call starts a new one, whose initTransactions fences it
      }
    }
  }

  /**
   * Sends {@code records} in one transaction and commits it, which succeeds only when every record
   * was acknowledged; else aborts it and says why each failed record failed: for its own content (a
   * record-level refusal that no other record shares, when no other record holds one alone, or the
   * first the producer returned at once from {@code send}), for a record-level refusal whose record
   * is unknown, or for the transaction's sake.
   */
  private TransactionRounds.Round sendInTransaction(
      Producer<String, String> producer,
      List<Envelope> records,
      Deadline deadline,
      AtomicBoolean committing) {
    producer.beginTransaction();
    Map<Long, Future<RecordMetadata>> sent = new LinkedHashMap<>(records.size() * 4 / 3 + 1);
    Map<Long, Throwable> errors = new LinkedHashMap<>();
    Set<Long> refusedAtSend = new HashSet<>();
    for (Envelope e : records) {
      if (deadline.passed()) {
        errors.put(e.id(), new TimeoutException("the call budget was spent before it was sent"));
        break;
      }
      try {
        Future<RecordMetadata> future = producer.send(toRecord(e));
        sent.put(e.id(), future);
        // Done already: refused by the producer before sending, or, on a loaded machine, sent and
        // acknowledged before this thread looked. Only a failure ends the round early: the records
        // after an acknowledged one belong to the transaction as much as the others.
        Throwable failedAtSend = future.isDone() ? failure(future) : null;
        if (failedAtSend != null) {
          refusedAtSend.add(e.id());
          if (!isRecordRefusal(failedAtSend)) {
            break; // no metadata, error state: the rest would wait as long and fail the same
          }
        }
      } catch (RuntimeException ex) {
        errors.put(e.id(), ex);
        refusedAtSend.add(e.id());
        if (!isRecordRefusal(ex)) {
          break;
        }
      }
    }
    if (errors.isEmpty() && sent.values().stream().noneMatch(KafkaRelay::failedAlready)) {
      try {
        committing.set(true);
        commit(producer, deadline);
        return new TransactionRounds.Round(true, Map.of());
      } catch (RuntimeException commitFailed) {
        // A record's failure fails the commit and leaves the transaction to abort. Any other
        // failure (fenced, timed out, the coordinator's) leaves the outcome unknown: the abort
        // fails too, or no record failed, and no record is to blame.
        try {
          producer.abortTransaction();
        } catch (RuntimeException abortFailed) {
          commitFailed.addSuppressed(abortFailed);
          throw commitFailed;
        }
        collectFailures(sent, errors);
        if (errors.isEmpty()) {
          throw commitFailed;
        }
      }
    } else {
      producer.abortTransaction(); // waits for the records in flight; drops those not sent yet
      collectFailures(sent, errors);
    }
    Map<Throwable, Integer> holders = new IdentityHashMap<>();
    errors.values().forEach(t -> holders.merge(t, 1, Integer::sum));
    // Kafka gives each record the broker refused with a record error an exception of its own, and
    // the batches not yet sent the transaction's error, another instance: a refusal that one record
    // alone holds is that record's only when no other record alone holds another one.
    long heldAlone =
        errors.entrySet().stream()
            .filter(f -> !refusedAtSend.contains(f.getKey()))
            .map(Map.Entry::getValue)
            .filter(t -> isRecordRefusal(t) && holders.get(t) == 1)
            .count();
    Set<Throwable> claimed = Collections.newSetFromMap(new IdentityHashMap<>());
    Map<Long, TransactionRounds.Failure> failures = new HashMap<>();
    for (Envelope e : records) {
      Throwable t = errors.get(e.id());
      if (t == null) {
        continue;
      }
      TransactionRounds.Cause cause = TransactionRounds.Cause.COLLATERAL;
      if (isRecordRefusal(t)) {
        // Whose refusal it is: the record that alone holds it (when it is the only such refusal),
        // or the first one the producer refused at send with it (records queued before it fail
        // later with the same instance). Any other is unattributed, for the rounds to pin.
        boolean own =
            holders.get(t) == 1 && heldAlone == 1
                || refusedAtSend.contains(e.id()) && claimed.add(t);
        cause = own ? TransactionRounds.Cause.OWN : TransactionRounds.Cause.SHARED;
      }
      failures.put(e.id(), new TransactionRounds.Failure("Kafka refused the record: " + t, cause));
    }
    return new TransactionRounds.Round(false, failures);
  }

  private static boolean isRecordRefusal(Throwable t) {
    return t != null && RECORD_REFUSALS.stream().anyMatch(type -> type.isInstance(t));
  }

  /**
   * Commits the transaction. The commit sends what is still buffered and waits for its
   * acknowledgements itself, in the producer's thread: no wake-up of the caller between the last
   * acknowledgement and the commit, as a flush before it would take. Each wait of {@code
   * commitTransaction} ends after {@code max.block.ms}; one that ended so is resumed (Kafka's
   * producer takes up the same commit) until the call's deadline, so that slow acknowledgements
   * have the whole budget, as they would in a flush.
   */
  private static void commit(Producer<String, String> producer, Deadline deadline) {
    while (true) {
      try {
        producer.commitTransaction();
        return;
      } catch (TimeoutException slow) {
        if (deadline.passed()) {
          throw slow;
        }
      }
    }
  }

  /** Whether {@code future} already says its record failed. */
  private static boolean failedAlready(Future<RecordMetadata> future) {
    return future.isDone() && failure(future) != null;
  }

  /** Why a completed send failed, or null when it succeeded. */
  private static Throwable failure(Future<RecordMetadata> done) {
    try {
      done.get();
      return null;
    } catch (ExecutionException ex) {
      return ex.getCause();
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      return ex;
    }
  }

  /**
   * Adds to {@code errors} why each failed record of an ended transaction failed. Once the
   * transaction ended every future is done; one that is not yet counts as failed, not the record's
   * fault, rather than be waited for.
   */
  private static void collectFailures(
      Map<Long, Future<RecordMetadata>> sent, Map<Long, Throwable> errors) {
    for (Map.Entry<Long, Future<RecordMetadata>> f : sent.entrySet()) {
      Throwable t =
          f.getValue().isDone()
              ? failure(f.getValue())
              : new TimeoutException("not acknowledged when the transaction ended");
      if (t != null) {
        errors.put(f.getKey(), t);
      }
    }
  }

  private ProducerRecord<String, String> toRecord(Envelope e) {
    List<Header> headers = new ArrayList<>(5);
    headers.add(header(ID, Long.toString(e.id())));
    headers.add(header(OUTBOX, e.outbox()));
    headers.add(header(TYPE, e.type()));
    headers.add(header(ATTEMPT, Integer.toString(e.attempt())));
    if (e.traceParent() != null) {
      headers.add(header(TRACE_PARENT, e.traceParent()));
    }
    // Kafka keeps order within a topic partition only: a total-order outbox's records all go to
    // the first, whatever their keys.
    Integer topicPartition = OrderingScope.isWholeOutbox(e.orderingScope()) ? 0 : null;
    return new ProducerRecord<>(topic, topicPartition, e.groupKey(), e.payload(), headers);
  }

  private static Header header(String key, String value) {
    return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
  }

  /** Closes {@code producer} without waiting for what it still has to send. */
  private static void closeNow(Producer<String, String> producer) {
    try {
      producer.close(Duration.ZERO);
    } catch (RuntimeException e) {
      LOG.log(Level.FINE, "closing a Kafka producer failed", e);
    }
  }

  /**
   * Closes every producer kept for a next call. A task still under way closes its own producer when
   * it ends, rather than keeping it.
   */
  @Override
  public void close() {
    closed = true;
    for (Integer partition : producers.keySet()) {
      closeKept(partition);
    }
  }

  /** Keeps {@code producer} for the partition's next call, unless the relay was closed. */
  private void keep(int partition, Producer<String, String> producer) {
    producers.put(partition, producer);
    if (closed) {
      closeKept(partition); // closed while the task that keeps it was under way
    }
  }

  private void closeKept(int partition) {
    Producer<String, String> producer = producers.remove(partition);
    if (producer != null) {
      closeNow(producer);
    }
  }
}
