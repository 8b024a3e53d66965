package io.outboxer.internal.relay.kafka;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.rules.BatchOutcome;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import io.outboxer.spi.Relay;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
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
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends each batch to a Kafka topic in one Kafka transaction: record key = group key (null when
 * ungrouped), value = the JSON payload, headers {@value #ID}, {@value #OUTBOX}, {@value #TYPE},
 * {@value #ATTEMPT}. A message counts as confirmed only when the transaction holding it committed,
 * so consumers reading committed data never see a message behind a failed one of its group (ADR
 * 0004). When records of a batch fail (a record too large for the topic, say), the transaction is
 * aborted and the batch sent again in a new one without the failed messages and what follows them
 * in their scope; the failed ones are reported with the broker's reason.
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
 * does not answer fails within the budget; a batch whose first transaction used the budget up is
 * not sent again: its messages stay pending.
 */
public final class KafkaRelay implements Relay {

  public static final String ID = "outboxer-id";
  public static final String OUTBOX = "outboxer-outbox";
  public static final String TYPE = "outboxer-type";
  public static final String ATTEMPT = "outboxer-attempt";

  private static final Logger LOG = Logger.getLogger(KafkaRelay.class.getName());

  /** The producer's timeouts, derived from the call budget unless the configuration sets one. */
  private static final List<String> TIMEOUTS =
      List.of(
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
          ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
          ProducerConfig.MAX_BLOCK_MS_CONFIG);

  private final String outbox;
  private final String topic;
  private final String transactionalIdPrefix;
  private final Properties producerProperties;
  private final Duration callBudget;
  private final Map<Integer, Producer<String, String>> producers = new ConcurrentHashMap<>();

  KafkaRelay(
      String outbox,
      String topic,
      String transactionalIdPrefix,
      Properties properties,
      Duration callBudget) {
    this.outbox = outbox;
    this.topic = topic;
    this.transactionalIdPrefix = transactionalIdPrefix;
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
        outbox.name(), topic, prefix == null ? "outboxer-" : prefix, properties, callBudget);
  }

  /** The producer properties in force (for tests). */
  Properties producerProperties() {
    return producerProperties;
  }

  @Override
  public DeliveryReport deliver(List<Envelope> batch) {
    Deadline deadline = Deadline.in(callBudget);
    int partition = batch.get(0).partition();
    Producer<String, String> producer = producer(partition);
    try {
      Map<Long, String> failures = sendInTransaction(producer, batch);
      if (failures.isEmpty()) {
        return report(batch, failures);
      }
      // Leave out each failed message and everything behind it in its scope (the engine's own
      // prefix rule decides which), and send the rest again.
      BatchOutcome outcome = BatchOutcome.decide(batch, report(batch, failures));
      List<Envelope> rest = outcome.confirmed();
      if (deadline.passed()) {
        rest = List.of(); // no time for a second transaction: the rest stays pending
      }
      if (!rest.isEmpty()) {
        Map<Long, String> again = sendInTransaction(producer, rest);
        if (!again.isEmpty()) {
          throw new IllegalStateException("Kafka refused the batch twice: " + again.values());
        }
      }
      DeliveryReport.Builder report = DeliveryReport.builder();
      rest.forEach(e -> report.confirmed(e.id()));
      outcome.failed().forEach(f -> report.failed(f.envelope().id(), f.reason()));
      return report.build();
    } catch (RuntimeException e) {
      // The producer may be fenced or in an unknown state: start the next batch with a new one.
      discard(partition);
      throw e;
    }
  }

  /**
   * Sends {@code batch} in one transaction and commits it when every record was acknowledged.
   *
   * @return the failed records with their reasons; when not empty, the transaction was aborted
   */
  private Map<Long, String> sendInTransaction(
      Producer<String, String> producer, List<Envelope> batch) {
    producer.beginTransaction();
    Map<Long, Future<RecordMetadata>> sent = new HashMap<>();
    Map<Long, String> failures = new HashMap<>();
    for (Envelope e : batch) {
      try {
        sent.put(e.id(), producer.send(toRecord(e)));
      } catch (RuntimeException ex) {
        failures.put(e.id(), "Kafka refused the record: " + ex);
      }
    }
    producer.flush();
    for (Map.Entry<Long, Future<RecordMetadata>> f : sent.entrySet()) {
      try {
        f.getValue().get();
      } catch (ExecutionException ex) {
        failures.put(f.getKey(), "Kafka refused the record: " + ex.getCause());
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for Kafka", ex);
      }
    }
    if (failures.isEmpty()) {
      producer.commitTransaction();
    } else {
      producer.abortTransaction();
    }
    return failures;
  }

  private ProducerRecord<String, String> toRecord(Envelope e) {
    ProducerRecord<String, String> record = new ProducerRecord<>(topic, e.groupKey(), e.payload());
    record.headers().add(ID, Long.toString(e.id()).getBytes(StandardCharsets.UTF_8));
    record.headers().add(OUTBOX, e.outbox().getBytes(StandardCharsets.UTF_8));
    record.headers().add(TYPE, e.type().getBytes(StandardCharsets.UTF_8));
    record.headers().add(ATTEMPT, Integer.toString(e.attempt()).getBytes(StandardCharsets.UTF_8));
    return record;
  }

  /** Every message of {@code batch} confirmed, but those in {@code failures}. */
  private static DeliveryReport report(List<Envelope> batch, Map<Long, String> failures) {
    DeliveryReport.Builder report = DeliveryReport.builder();
    for (Envelope e : batch) {
      String reason = failures.get(e.id());
      if (reason == null) {
        report.confirmed(e.id());
      } else {
        report.failed(e.id(), reason);
      }
    }
    return report.build();
  }

  private Producer<String, String> producer(int partition) {
    return producers.computeIfAbsent(
        partition,
        p -> {
          Properties properties = new Properties();
          properties.putAll(producerProperties);
          properties.put(
              ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalIdPrefix + outbox + "-" + p);
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
