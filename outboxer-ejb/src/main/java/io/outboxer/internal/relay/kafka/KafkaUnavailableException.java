package io.outboxer.internal.relay.kafka;

/**
 * Kafka failed a whole batch for a reason that is no message's fault (the broker unreachable or
 * timing out, the topic missing, the producer fenced): the engine charges no message and waits.
 */
final class KafkaUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  KafkaUnavailableException(String reasons) {
    super("Kafka failed the batch, no record refused for its content: " + reasons);
  }
}
