package io.outboxer.it.fault;

import io.outboxer.it.support.KafkaRecords;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads every partition of a topic from its beginning, committed records only, as a consumer
 * application would, and writes each record (id, group, attempt) into the {@link Ledger} in the
 * order it read them, until closed.
 */
public final class LedgerConsumer implements AutoCloseable {

  private final KafkaConsumer<String, String> consumer;
  private final Thread thread;

  public LedgerConsumer(String bootstrap, String topic, int partitions, Ledger ledger) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    List<TopicPartition> all = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      all.add(new TopicPartition(topic, i));
    }
    consumer.assign(all);
    consumer.seekToBeginning(all);
    thread =
        new Thread(
            () -> {
              try {
                while (true) {
                  List<Ledger.Delivery> read = new ArrayList<>();
                  for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    read.add(
                        new Ledger.Delivery(KafkaRecords.id(r), r.key(), KafkaRecords.attempt(r)));
                  }
                  ledger.delivered(read);
                }
              } catch (WakeupException closing) {
                // closed by the test
              } finally {
                consumer.close();
              }
            },
            "fault-consumer");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() throws InterruptedException {
    consumer.wakeup();
    thread.join(Duration.ofSeconds(30).toMillis());
  }
}
