package io.outboxer.it.support;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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

  private static String header(ConsumerRecord<String, String> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
