package io.outboxer.bench;

import static org.awaitility.Awaitility.await;

import io.outboxer.internal.relay.kafka.KafkaRelay;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A {@code read_committed} consumer of every partition of a topic, from its end at creation, that
 * notes when each record arrived, by the id in its {@code outboxer-id} header. When a message does
 * not arrive in time, the failure says where the consumer stood and what held it.
 */
final class Arrivals implements AutoCloseable {

  private final String bootstrap;
  private final List<TopicPartition> partitions;
  private final KafkaConsumer<String, String> consumer;
  private final Map<Long, Long> arrived = new ConcurrentHashMap<>();

  /** The offset of the last record returned, by partition. */
  private final Map<Integer, Long> returned = new ConcurrentHashMap<>();

  private final Thread poller;
  private volatile boolean closed;

  Arrivals(String bootstrap, String topic) {
    this.bootstrap = bootstrap;
    consumer = Received.atEnd(bootstrap, topic);
    partitions = List.copyOf(consumer.assignment());
    poller = new Thread(this::poll, "arrivals-" + topic);
    poller.start();
  }

  private void poll() {
    while (!closed) {
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(20))) {
        long now = System.nanoTime();
        returned.put(r.partition(), r.offset());
        Header id = r.headers().lastHeader(KafkaRelay.ID);
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
    try {
      await("all " + committed.size() + " messages at the consumer")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> committed.stream().allMatch(c -> arrived.containsKey(c[0])));
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException(e.getMessage() + "; " + missing(committed), e);
    }
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

  /**
   * Which messages did not arrive, and per partition: the offset of the last record the consumer
   * returned (transaction markers and aborted records are never returned), the last stable offset
   * (what a {@code read_committed} consumer may read), the end of the log, and the producers whose
   * open transaction holds the last stable offset back.
   */
  private String missing(List<long[]> committed) {
    List<Long> absent =
        committed.stream().map(c -> c[0]).filter(id -> !arrived.containsKey(id)).toList();
    StringBuilder why =
        new StringBuilder(absent.size() + " did not arrive (the first: ")
            .append(
                absent.stream().limit(10).map(String::valueOf).collect(Collectors.joining(", ")))
            .append(")");
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    Admin admin = Admin.create(p);
    try {
      Map<TopicPartition, OffsetSpec> latest =
          partitions.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
      var stable =
          admin
              .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
              .all()
              .get(10, TimeUnit.SECONDS);
      var end =
          admin
              .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
              .all()
              .get(10, TimeUnit.SECONDS);
      var producers = admin.describeProducers(partitions).all().get(10, TimeUnit.SECONDS);
      Map<Integer, String> byPartition = new TreeMap<>();
      for (TopicPartition tp : partitions) {
        String open =
            producers.get(tp).activeProducers().stream()
                .filter(s -> s.currentTransactionStartOffset().isPresent())
                .map(Arrivals::describe)
                .collect(Collectors.joining(", "));
        byPartition.put(
            tp.partition(),
            (returned.containsKey(tp.partition())
                    ? "last returned " + returned.get(tp.partition())
                    : "none returned")
                + ", stable "
                + stable.get(tp).offset()
                + ", end "
                + end.get(tp).offset()
                + (open.isEmpty() ? "" : ", open transactions: " + open));
      }
      why.append("; by partition: ").append(byPartition);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      why.append("; the broker's offsets could not be read: ").append(e);
    } finally {
      admin.close(Duration.ofSeconds(2));
    }
    return why.toString();
  }

  private static String describe(ProducerState s) {
    return "producer "
        + s.producerId()
        + " epoch "
        + s.producerEpoch()
        + " from offset "
        + s.currentTransactionStartOffset().getAsLong()
        + " (last write "
        + (System.currentTimeMillis() - s.lastTimestamp())
        + " ms ago)";
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
