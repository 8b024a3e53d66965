package io.outboxer.bench;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A {@code read_committed} consumer of every partition of a topic, from its end at creation, that
 * notes when each record arrived, by the id in its {@code outboxer-id} header.
 */
final class Arrivals implements AutoCloseable {

  private final KafkaConsumer<String, String> consumer;
  private final Map<Long, Long> arrived = new ConcurrentHashMap<>();
  private final Thread poller;
  private volatile boolean closed;

  Arrivals(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-" + UUID.randomUUID());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map((PartitionInfo i) -> new TopicPartition(topic, i.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position); // fixes the start before any message is sent
    poller = new Thread(this::poll, "arrivals-" + topic);
    poller.start();
  }

  private void poll() {
    while (!closed) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(20))) {
        long now = System.nanoTime();
        Header id = r.headers().lastHeader("outboxer-id");
        if (id != null) {
          arrived.put(Long.parseLong(new String(id.value(), StandardCharsets.UTF_8)), now);
        }
      }
    }
  }

  /**
   * Waits until every message of {@code committed} ({@code [id, nanoTime committed]}) arrived, and
   * returns the latencies from commit to arrival (a message that arrived before its commit was seen
   * counts as 0).
   */
  Requests.Latency latencies(List<long[]> committed) {
    await("all " + committed.size() + " messages at the consumer")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> committed.stream().allMatch(c -> arrived.containsKey(c[0])));
    Histogram h = new Histogram(120_000_000L, 3);
    for (long[] c : committed) {
      h.recordValue(Math.max(0, arrived.get(c[0]) - c[1]) / 1000);
    }
    return new Requests.Latency(
        h.getValueAtPercentile(50) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0,
        h.getValueAtPercentile(99.9) / 1000.0,
        h.getTotalCount());
  }

  @Override
  public void close() {
    closed = true;
    try {
      poller.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    consumer.close();
  }
}
