package io.outboxer.internal.relay.kafka;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.relay.support.BudgetedRelay;
import io.outboxer.internal.relay.support.MessageAttributes;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import java.util.concurrent.Future;
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
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends each batch to a Kafka topic in one Kafka transaction: record key = group key (null when
 * ungrouped), value = the JSON payload, headers {@value #ID}, {@value #OUTBOX}, {@value #TYPE},
 * {@value #ATTEMPT}, and {@value #TRACE_PARENT} for a message published inside a trace. A message
 * counts as confirmed only when the transaction holding it committed, so consumers reading
 * committed data never see a message behind a failed one of its group (ADR 0004). A message is
 * charged only for its own refusal (a record too large for the producer or the topic, say): {@link
 * TransactionRounds} pins a refusal to its record and sends the rest of the batch again in new
 * transactions; a batch that fails for any other reason charges nothing.
 *
 * <p>One transactional producer per partition of the outbox, with the transactional id {@code
 * <prefix><outbox>-<partition>}: a partition has one worker in the cluster, and a worker that lost
 * its lease is fenced by Kafka too when the new owner's producer starts. Producers are idempotent
 * with {@code acks=all} and at most 5 requests in flight; every other producer property comes from
 * {@code outboxer.outbox.<name>.relay.kafka.*} ({@code bootstrap.servers} required, {@code topic}
 * required, {@code transactional-id-prefix} default {@code outboxer-}).
 *
 * <p>Unless the configuration sets one of them, {@code delivery.timeout.ms} is the call budget and
 * {@code request.timeout.ms} and {@code max.block.ms} half of it, so that a batch to a broker that
 * does not answer fails within the budget; no new transaction starts once the budget is used up:
 * the rest of the batch stays pending.
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
  private final String transactionalIdBase;
  private final Properties producerProperties;
  private final Duration callBudget;
  private final Map<Integer, Producer<String, String>> producers = new ConcurrentHashMap<>();

  /**
   * @param transactionalIdBase the transactional ids of the producers, but for their partition
   */
  KafkaRelay(String topic, String transactionalIdBase, Properties properties, Duration callBudget) {
    this.topic = topic;
    this.transactionalIdBase = transactionalIdBase;
    this.producerProperties = properties;
    this.callBudget = callBudget;
  }

  /** Reads the relay's settings; the producers connect at their first batch. */
  public static KafkaRelay create(OutboxConfig outbox, Duration callBudget) {
    String topic = outbox.requiredRelaySetting("topic", "the topic the Kafka relay sends to");
    outbox.requiredRelaySetting(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "the Kafka brokers to connect to");
    Map<String, String> settings = new HashMap<>(outbox.relaySettings());
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
    return new KafkaRelay(
        topic,
        (prefix == null ? "outboxer-" : prefix) + outbox.name() + "-",
        properties,
        callBudget);
  }

  @Override
  public Duration callBudget() {
    return callBudget;
  }

  /** The producer properties in force (for tests). */
  Properties producerProperties() {
    return producerProperties;
  }

  @Override
  public DeliveryReport deliver(List<Envelope> batch, Duration timeLeft) {
    Deadline deadline = deadline(timeLeft);
    int partition = batch.get(0).partition();
    Producer<String, String> producer = producer(partition);
    try {
      return TransactionRounds.deliver(
          batch, records -> sendInTransaction(producer, records, deadline), deadline);
    } catch (RuntimeException e) {
      // The producer may be fenced or in an unknown state: start the next batch with a new one.
      discard(partition);
      throw e;
    }
  }

  /**
   * Sends {@code records} in one transaction and commits it when every record was acknowledged,
   * else aborts it and says why each failed record failed: for its own content (a record-level
   * refusal that no other record shares, or the first the producer returned at once from {@code
   * send}), for a record-level refusal shared with others (whose is unknown), or for the
   * transaction's sake.
   */
  private TransactionRounds.Round sendInTransaction(
      Producer<String, String> producer, List<Envelope> records, Deadline deadline) {
    producer.beginTransaction();
    Map<Long, Future<RecordMetadata>> sent = new LinkedHashMap<>();
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
        if (future.isDone()) {
          refusedAtSend.add(e.id()); // checked by the producer before sending; failed or not
          if (!isRecordRefusal(failure(future))) {
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
    producer.flush();
    for (Map.Entry<Long, Future<RecordMetadata>> f : sent.entrySet()) {
      try {
        f.getValue().get();
      } catch (ExecutionException ex) {
        errors.put(f.getKey(), ex.getCause());
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for Kafka", ex);
      }
    }
    if (errors.isEmpty()) {
      producer.commitTransaction();
      return new TransactionRounds.Round(true, Map.of());
    }
    producer.abortTransaction();
    Map<Throwable, Integer> holders = new IdentityHashMap<>();
    errors.values().forEach(t -> holders.merge(t, 1, Integer::sum));
    Set<Throwable> claimed = Collections.newSetFromMap(new IdentityHashMap<>());
    Map<Long, TransactionRounds.Failure> failures = new HashMap<>();
    for (Envelope e : records) {
      Throwable t = errors.get(e.id());
      if (t == null) {
        continue;
      }
      TransactionRounds.Cause cause = TransactionRounds.Cause.COLLATERAL;
      if (isRecordRefusal(t)) {
        // Whose refusal it is: the record that alone holds it, or the first one the producer
        // refused at send with it (records queued before it fail later with the same instance).
        boolean own = holders.get(t) == 1 || refusedAtSend.contains(e.id()) && claimed.add(t);
        cause = own ? TransactionRounds.Cause.OWN : TransactionRounds.Cause.SHARED;
      }
      failures.put(e.id(), new TransactionRounds.Failure("Kafka refused the record: " + t, cause));
    }
    return new TransactionRounds.Round(false, failures);
  }

  private static boolean isRecordRefusal(Throwable t) {
    return t != null && RECORD_REFUSALS.stream().anyMatch(type -> type.isInstance(t));
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

  private ProducerRecord<String, String> toRecord(Envelope e) {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, e.groupKey(), e.payload());
    record.headers().add(ID, Long.toString(e.id()).getBytes(StandardCharsets.UTF_8));
    record.headers().add(OUTBOX, e.outbox().getBytes(StandardCharsets.UTF_8));
    record.headers().add(TYPE, e.type().getBytes(StandardCharsets.UTF_8));
    record.headers().add(ATTEMPT, Integer.toString(e.attempt()).getBytes(StandardCharsets.UTF_8));
    if (e.traceParent() != null) {
      record.headers().add(TRACE_PARENT, e.traceParent().getBytes(StandardCharsets.UTF_8));
    }
    return record;
  }

  private Producer<String, String> producer(int partition) {
    return producers.computeIfAbsent(
        partition,
        p -> {
          Properties properties = new Properties();
          properties.putAll(producerProperties);
          properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalIdBase + p);
          KafkaProducer<String, String> producer =
              new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer());
          producer.initTransactions();
          return producer;
        });
  }

  private void discard(int partition) {
    Producer<String, String> producer = producers.remove(partition);
    if (producer != null) {
      try {
        producer.close(callBudget);
      } catch (RuntimeException e) {
        LOG.log(Level.FINE, "closing a Kafka producer failed", e);
      }
    }
  }

  @Override
  public void close() {
    producers.keySet().forEach(this::discard);
  }
}
