package io.outboxer.bench;

import io.outboxer.internal.relay.kafka.KafkaRelay;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The messages a topic received from the moment of creation on, counted once each by the id in
 * their {@code outboxer-id} header, as a {@code read_committed} consumer sees them. It reads
 * nothing until asked, so that it takes no CPU from the drain it checks.
 */
final class Received implements AutoCloseable {

  private final KafkaConsumer<String, String> consumer;
  private final Set<Long> ids = new HashSet<>();

  Received(String bootstrap, String topic) {
    consumer = atEnd(bootstrap, topic);
  }

  /**
   * A {@code read_committed} consumer of every partition of {@code topic}, positioned at their end
   * now, before anything more is sent.
   */
  static KafkaConsumer<String, String> atEnd(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-" + UUID.randomUUID());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map(i -> new TopicPartition(topic, i.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position); // fixes the start before anything is sent
    return consumer;
  }

  /**
   * Reads on until {@code expected} messages whose key does not start with {@code leftOut} have
   * arrived, and fails naming how many did when they do not within {@code timeout}: a drain whose
   * rows were deleted without their records would otherwise be timed as a fast one.
   */
  void require(long expected, String leftOut, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (ids.size() < expected) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            what
                + ": "
                + ids.size()
                + " of the "
                + expected
                + " messages whose rows were deleted reached the topic within "
                + timeout.toSeconds()
                + " s");
      }
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
        Header id = r.headers().lastHeader(KafkaRelay.ID);
        if (id != null && (r.key() == null || !r.key().startsWith(leftOut))) {
          ids.add(Long.parseLong(new String(id.value(), StandardCharsets.UTF_8)));
        }
      }
    }
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
