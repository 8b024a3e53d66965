package io.outboxer.it.support;

import io.outboxer.Outboxed;

/** {@link ItEvent}s for each outbox the test server configures (arquillian-support.xml). */
public final class ItEvents {

  private ItEvents() {}

  /** Outbox it-group: group ordering, 2 partitions, infinite retries. */
  @Outboxed("it-group")
  public static class Group extends ItEvent {
    public Group(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-total: total ordering. */
  @Outboxed("it-total")
  public static class Total extends ItEvent {
    public Total(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-none: no ordering. */
  @Outboxed("it-none")
  public static class None extends ItEvent {
    public None(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-dead: max-attempts 3. */
  @Outboxed("it-dead")
  public static class Dead extends ItEvent {
    public Dead(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-stuck: a failed message waits an hour for its next attempt. */
  @Outboxed("it-stuck")
  public static class Stuck extends ItEvent {
    public Stuck(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-backoff: backoff from 200ms to 800ms. */
  @Outboxed("it-backoff")
  public static class Backoff extends ItEvent {
    public Backoff(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-overrun: its relay's call can be made to hang. */
  @Outboxed("it-overrun")
  public static class Overrun extends ItEvent {
    public Overrun(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-serial: serialize-writes. */
  @Outboxed("it-serial")
  public static class Serial extends ItEvent {
    public Serial(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-random: 3 partitions, max-attempts 3, small batches; carries its scenario's id. */
  @Outboxed("it-random")
  public static class Random extends ItEvent {
    private final String run;

    public Random(String group, int seq, String run) {
      super(group, seq);
      this.run = run;
    }

    public String getRun() {
      return run;
    }
  }

  /** Outbox it-cluster: 8 partitions, the recording relay. */
  @Outboxed("it-cluster")
  public static class Cluster extends ItEvent {
    public Cluster(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-kafka: the Kafka relay, 4 partitions. */
  @Outboxed("it-kafka")
  public static class Kafka extends ItEvent {
    public Kafka(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-kafka-total: the Kafka relay, total ordering, to a topic of three partitions. */
  @Outboxed("it-kafka-total")
  public static class KafkaTotal extends ItEvent {
    public KafkaTotal(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-kafka-small: the Kafka relay to a topic that takes records of 1 KiB at most. */
  @Outboxed("it-kafka-small")
  public static class KafkaSmall extends ItEvent {
    private final String padding;

    public KafkaSmall(String group, int seq, int paddingLength) {
      super(group, seq);
      this.padding = "x".repeat(paddingLength);
    }

    public String getPadding() {
      return padding;
    }
  }

  /** Outbox it-kafka-poison3: it-kafka-small's topic, one partition, max-attempts 3. */
  @Outboxed("it-kafka-poison3")
  public static class KafkaPoison3 extends KafkaSmall {
    public KafkaPoison3(String group, int seq, int paddingLength) {
      super(group, seq, paddingLength);
    }
  }

  /** Outbox it-kafka-poison: it-kafka-small's topic, one partition, max-attempts infinity. */
  @Outboxed("it-kafka-poison")
  public static class KafkaPoison extends KafkaSmall {
    public KafkaPoison(String group, int seq, int paddingLength) {
      super(group, seq, paddingLength);
    }
  }

  /** Outbox it-kafka-slow: the Kafka relay, one partition, batches of 1,000, max-attempts 3. */
  @Outboxed("it-kafka-slow")
  public static class KafkaSlow extends KafkaSmall {
    public KafkaSlow(String group, int seq, int paddingLength) {
      super(group, seq, paddingLength);
    }
  }

  /** Outbox it-kafka-restart: the Kafka relay with short client timeouts and retries. */
  @Outboxed("it-kafka-restart")
  public static class KafkaRestart extends ItEvent {
    public KafkaRestart(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-sqs: the SQS FIFO relay, four partitions, batches of 200. */
  @Outboxed("it-sqs")
  public static class Sqs extends ItEvent {
    public Sqs(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-sqs-small: the SQS FIFO relay, one partition; the note is any text. */
  @Outboxed("it-sqs-small")
  public static class SqsNote extends ItEvent {
    private final String note;

    public SqsNote(String group, int seq, String note) {
      super(group, seq);
      this.note = note;
    }

    public String getNote() {
      return note;
    }
  }

  /** Outbox it-sqs-poison3: it-sqs-small's queue, requests of 4 MiB at most, max-attempts 3. */
  @Outboxed("it-sqs-poison3")
  public static class SqsPoison3 extends SqsNote {
    public SqsPoison3(String group, int seq, String note) {
      super(group, seq, note);
    }
  }

  /**
   * Outbox it-sqs-poison: it-sqs-small's queue, requests of 4 MiB at most, max-attempts infinity.
   */
  @Outboxed("it-sqs-poison")
  public static class SqsPoison extends SqsNote {
    public SqsPoison(String group, int seq, String note) {
      super(group, seq, note);
    }
  }

  /** Outbox it-jms: the JMS relay to a queue an MDB with one instance consumes. */
  @Outboxed("it-jms")
  public static class Jms extends ItEvent {
    public Jms(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-jms-small: the JMS relay to a queue that holds 20 messages at most. */
  @Outboxed("it-jms-small")
  public static class JmsSmall extends ItEvent {
    public JmsSmall(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-sqs-missing: the SQS relay to a queue that the test creates late, max-attempts 3. */
  @Outboxed("it-sqs-missing")
  public static class SqsMissing extends ItEvent {
    public SqsMissing(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-sqs-total: the SQS FIFO relay with total ordering. */
  @Outboxed("it-sqs-total")
  public static class SqsTotal extends ItEvent {
    public SqsTotal(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-jms-topic: the JMS relay to a topic. */
  @Outboxed("it-jms-topic")
  public static class JmsTopic extends ItEvent {
    public JmsTopic(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-commit: the Kafka relay, 4 partitions, writers not serialized. */
  @Outboxed("it-commit")
  public static class Commit extends ItEvent {
    public Commit(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-commit-off: it-commit with wait-for-writers=false, to its own topic. */
  @Outboxed("it-commit-off")
  public static class CommitOff extends ItEvent {
    public CommitOff(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-commit-jms: the JMS relay to it-jms's queue, 4 partitions. */
  @Outboxed("it-commit-jms")
  public static class CommitJms extends ItEvent {
    public CommitJms(String group, int seq) {
      super(group, seq);
    }
  }
}
