package io.outboxer.it.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads what the Kafka relay wrote to the test broker, as an application should. */
public final class KafkaRecords {

  private KafkaRecords() {}

  /** A consumer of its own group that reads committed records only, from the beginning. */
  public static KafkaConsumer<String, String> consumer(String groupId) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Brokers.kafkaBootstrap());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
  }

  /** The outbox message id a record carries in its outboxer-id header. */
  public static long id(ConsumerRecord<String, String> record) {
    return Long.parseLong(header(record, "outboxer-id"));
  }

  /** The delivery attempt a record carries in its outboxer-attempt header. */
  public static int attempt(ConsumerRecord<String, String> record) {
    return Integer.parseInt(header(record, "outboxer-attempt"));
  }

  /**
   * Where {@code consumer} stands in each partition of {@code topic}, for a failure's message: the
   * offset it reads next (when the partition is assigned to it), the last stable offset (what a
   * {@code read_committed} consumer may read), the end of the log, and the producers whose open
   * transaction holds the last stable offset back. Called from the consumer's own thread.
   */
  public static String standing(KafkaConsumer<String, String> consumer, String topic) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Brokers.kafkaBootstrap());
    Admin admin = Admin.create(p);
    try {
      Set<TopicPartition> assigned = consumer.assignment();
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      Map<TopicPartition, OffsetSpec> latest =
          partitions.stream()
              .collect(Collectors.toMap(Function.identity(), tp -> OffsetSpec.latest()));
      var end =
          admin
              .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
              .all()
              .get(10, TimeUnit.SECONDS);
      var producers = admin.describeProducers(partitions).all().get(10, TimeUnit.SECONDS);
      Map<TopicPartition, Long> stable = consumer.endOffsets(partitions, Duration.ofSeconds(10));
      Map<String, String> standing = new TreeMap<>();
      for (TopicPartition tp : partitions) {
        String open =
            producers.get(tp).activeProducers().stream()
                .filter(s -> s.currentTransactionStartOffset().isPresent())
                .map(KafkaRecords::describe)
                .collect(Collectors.joining(", "));
        standing.put(
            tp.toString(),
            (assigned.contains(tp) ? "next " + consumer.position(tp) : "not assigned")
                + ", stable "
                + stable.get(tp)
                + ", end "
                + end.get(tp).offset()
                + (open.isEmpty() ? "" : ", open transactions: " + open));
      }
      return standing.isEmpty() ? topic + " has no partitions yet" : standing.toString();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return "the broker's offsets could not be read: " + e;
    } finally {
      admin.close(Duration.ofSeconds(2));
    }
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

  private static String header(ConsumerRecord<String, String> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
