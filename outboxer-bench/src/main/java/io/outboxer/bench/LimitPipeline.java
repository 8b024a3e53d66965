package io.outboxer.bench;

import io.outboxer.internal.relay.kafka.KafkaRelay;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The limit: the same delivery without Outboxer. One thread per partition, each with its own JDBC
 * connection and kafka-clients producer (idempotent, {@code acks=all}, at most 5 requests in
 * flight, as Outboxer's): read a batch of the partition's ready rows in id order (the statement and
 * index Outboxer's worker reads with), send it with the same record key, value and headers, wait
 * for every acknowledgement, delete the batch's rows in one transaction. With {@code transactional}
 * each batch is sent in one Kafka transaction, as Outboxer's Kafka relay does (its commit waits for
 * the acknowledgements, without a flush before it): the profile's step between the two. The same
 * pipeline runs on PostgreSQL and on SQLite ({@link OutboxTable}).
 */
final class LimitPipeline implements AutoCloseable {

  private final OutboxTable db;
  private final String name;
  private final String bootstrap;
  private final String topic;
  private final int partitions;
  private final int batchSize;

  /**
   * Per partition its connection, plain producer and transactional producer: opened by {@link
   * #open} before the first drain is timed and kept for the run, so that a drain's time and CPU
   * hold no set-up and the database's backends stay the same from one CPU sample to the next.
   */
  private final List<Connection> connections = new ArrayList<>();

  private final List<KafkaProducer<String, String>> plain = new ArrayList<>();
  private final List<KafkaProducer<String, String>> transactional = new ArrayList<>();
  private final ExecutorService threads;

  /**
   * A pipeline named {@code name} (its Kafka transactional ids carry it) over {@code db}'s outbox
   * table.
   */
  LimitPipeline(
      String name, OutboxTable db, String bootstrap, String topic, int partitions, int batchSize) {
    this.name = name;
    this.db = db;
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.partitions = partitions;
    this.batchSize = batchSize;
    this.threads = Executors.newFixedThreadPool(partitions);
  }

  /** Opens the connections and producers (once). */
  void open() throws Exception {
    if (connections.isEmpty()) {
      for (int p = 0; p < partitions; p++) {
        connections.add(db.connect());
        plain.add(producer(null));
        transactional.add(producer("bench-limit-" + name + "-" + p));
      }
    }
  }

  /** How the limit pipeline sends its batches. */
  enum Mode {
    /** Each record to the topic partition of its key, no Kafka transaction. */
    PLAIN,
    /** One Kafka transaction per batch, each record to the topic partition of its key. */
    TRANSACTION_PER_BATCH,
    /**
     * One Kafka transaction per batch, every record of a batch to one topic partition (the outbox
     * partition's number): what a transaction costs when it touches one partition instead of all.
     */
    TRANSACTION_PER_BATCH_ONE_PARTITION
  }

  /** Drains {@code outbox} until every partition reads an empty batch or {@code done} says so. */
  void drain(String outbox, Mode mode, BooleanSupplier done) throws Exception {
    boolean inTransactions = mode != Mode.PLAIN;
    open();
    List<Future<Void>> runs = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      runs.add(
          threads.submit(
              () -> {
                drainPartition(
                    outbox,
                    partition,
                    connections.get(partition),
                    (inTransactions ? transactional : plain).get(partition),
                    inTransactions,
                    mode == Mode.TRANSACTION_PER_BATCH_ONE_PARTITION ? partition : null,
                    done);
                return null;
              }));
    }
    for (Future<Void> run : runs) {
      run.get();
    }
  }

  @Override
  public void close() throws SQLException {
    threads.shutdownNow();
    for (KafkaProducer<String, String> producer : plain) {
      producer.close();
    }
    for (KafkaProducer<String, String> producer : transactional) {
      producer.close();
    }
    for (Connection c : connections) {
      c.close();
    }
  }

  private void drainPartition(
      String outbox,
      int partition,
      Connection c,
      KafkaProducer<String, String> producer,
      boolean transactional,
      Integer topicPartition,
      BooleanSupplier done)
      throws Exception {
    try (PreparedStatement read = c.prepareStatement(LimitStatements.READ);
        PreparedStatement delete = c.prepareStatement(db.deleteByIds())) {
      read.setString(1, outbox);
      read.setInt(2, partition);
      read.setInt(3, batchSize);
      while (!done.getAsBoolean()) {
        List<Long> ids = new ArrayList<>(batchSize);
        List<Future<RecordMetadata>> acks = new ArrayList<>(batchSize);
        if (transactional) {
          producer.beginTransaction();
        }
        try (ResultSet rows = read.executeQuery()) {
          while (rows.next()) {
            long id = rows.getLong(1);
            ids.add(id);
            acks.add(producer.send(record(rows, id, outbox, topicPartition)));
          }
        }
        if (ids.isEmpty()) {
          if (transactional) {
            producer.abortTransaction();
          }
          return;
        }
        if (transactional) {
          producer.commitTransaction();
        } else {
          producer.flush();
        }
        for (Future<RecordMetadata> ack : acks) {
          ack.get();
        }
        db.bindIds(c, delete, ids);
        int deleted = delete.executeUpdate();
        if (deleted != ids.size()) {
          throw new IllegalStateException("deleted " + deleted + " of " + ids.size() + " rows");
        }
      }
    }
  }

  private ProducerRecord<String, String> record(
      ResultSet row, long id, String outbox, Integer topicPartition) throws Exception {
    ProducerRecord<String, String> record =
        new ProducerRecord<>(topic, topicPartition, row.getString(2), row.getString(4));
    record.headers().add(KafkaRelay.ID, Long.toString(id).getBytes(StandardCharsets.UTF_8));
    record.headers().add(KafkaRelay.OUTBOX, outbox.getBytes(StandardCharsets.UTF_8));
    record.headers().add(KafkaRelay.TYPE, row.getString(3).getBytes(StandardCharsets.UTF_8));
    record
        .headers()
        .add(
            KafkaRelay.ATTEMPT,
            Integer.toString(row.getInt(5) + 1).getBytes(StandardCharsets.UTF_8));
    return record;
  }

  KafkaProducer<String, String> producer(String transactionalId) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    if (transactionalId != null) {
      p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    }
    KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    if (transactionalId != null) {
      producer.initTransactions();
    }
    return producer;
  }
}
