package io.outboxer.bench;

import io.outboxer.internal.relay.kafka.KafkaRelay;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * P3's reference, the floor of commit-to-broker latency: no outbox at all. At the same rate, commit
 * the same business insert by JDBC ({@code demo_payment}, autocommit), then at once send a record
 * with the same producer settings and flush; latency from the commit to the consumer's arrival. Its
 * transactional form (P3t) sends each record in a Kafka transaction of its own, as Outboxer's relay
 * does at this rate: what the transaction alone adds to the latency.
 */
final class DirectSend {

  private final Rig rig;
  private final String topic;

  /** The failures of P3t's transactions (each record was then sent again), over every call. */
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());

  /** A producer of the pool and its transactional id (null when not transactional). */
  private record Pooled(String id, KafkaProducer<String, String> producer) {}

  DirectSend(Rig rig, String topic) {
    this.rig = rig;
    this.topic = topic;
  }

  /**
   * @param transactional each record in a Kafka transaction of its own (one transactional producer
   *     per sending thread), else all sent by one idempotent producer and flushed
   */
  Requests.Latency latency(int perSecond, Duration duration, boolean transactional)
      throws Exception {
    int threads = 16;
    BlockingQueue<Connection> connections = new ArrayBlockingQueue<>(threads);
    BlockingQueue<Pooled> producers = new ArrayBlockingQueue<>(threads);
    List<KafkaProducer<String, String>> created = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < threads; i++) {
      connections.add(rig.db().connect());
    }
    ExecutorService senders = Executors.newFixedThreadPool(threads);
    AtomicLong ids = new AtomicLong();
    try (Arrivals arrivals = new Arrivals(rig.kafka().bootstrapServers(), topic)) {
      for (int i = 0; i < (transactional ? threads : 1); i++) {
        String transactionalId = transactional ? "bench-direct-" + i : null;
        KafkaProducer<String, String> producer = rig.limit().producer(transactionalId);
        created.add(producer);
        producers.add(new Pooled(transactionalId, producer));
      }
      List<Future<long[]>> sends = new ArrayList<>();
      long intervalNanos = 1_000_000_000L / perSecond;
      long count = duration.toNanos() / intervalNanos;
      long start = System.nanoTime();
      for (long i = 0; i < count; i++) {
        Requests.sleepUntil(start + i * intervalNanos);
        sends.add(
            senders.submit(
                () -> {
                  long id = ids.incrementAndGet();
                  Connection c = connections.take();
                  try (PreparedStatement insert =
                      c.prepareStatement(
                          "insert into demo_payment (order_id, paid_at) values (?, ?)")) {
                    insert.setString(1, "direct-" + id);
                    insert.setString(2, "2026-01-01T00:00:00Z");
                    insert.executeUpdate();
                  } finally {
                    connections.add(c);
                  }
                  long committed = System.nanoTime();
                  ProducerRecord<String, String> record =
                      new ProducerRecord<>(
                          topic,
                          "order:direct-" + id,
                          "{\"orderId\":\"direct-"
                              + id
                              + "\",\"paidAt\":\"2026-01-01T00:00:00Z\"}");
                  record
                      .headers()
                      .add(KafkaRelay.ID, Long.toString(id).getBytes(StandardCharsets.UTF_8));
                  if (transactional) {
                    Pooled pooled = producers.take();
                    try {
                      sendInTransaction(pooled.producer(), record);
                    } catch (KafkaException e) {
                      // Replaced, as Outboxer's relay replaces a producer whose transaction
                      // failed, and the record sent again: its latency includes the retry.
                      failures.add(e.toString());
                      pooled.producer().close(Duration.ZERO);
                      pooled = new Pooled(pooled.id(), rig.limit().producer(pooled.id()));
                      created.add(pooled.producer());
                      sendInTransaction(pooled.producer(), record);
                    }
                    producers.add(pooled);
                  } else {
                    KafkaProducer<String, String> producer = producers.peek().producer();
                    producer.send(record);
                    producer.flush();
                  }
                  return new long[] {id, committed};
                }));
      }
      List<long[]> committed = new ArrayList<>();
      for (Future<long[]> send : sends) {
        committed.add(send.get());
      }
      return arrivals.latencies(committed);
    } finally {
      senders.shutdownNow();
      senders.awaitTermination(10, TimeUnit.SECONDS);
      for (Connection c : connections) {
        c.close();
      }
      for (KafkaProducer<String, String> p : created) {
        p.close();
      }
    }
  }

  private static void sendInTransaction(
      KafkaProducer<String, String> producer, ProducerRecord<String, String> record) {
    producer.beginTransaction();
    producer.send(record);
    producer.commitTransaction();
  }

  /** The transactions of P3t that failed and were sent again, over every call so far. */
  List<String> failures() {
    synchronized (failures) {
      return List.copyOf(failures);
    }
  }
}
