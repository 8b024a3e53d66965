package io.outboxer.internal.relay;

import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.relay.jms.JmsRelay;
import io.outboxer.internal.relay.kafka.KafkaRelay;
import io.outboxer.internal.relay.sqs.SqsFifoRelay;
import io.outboxer.spi.Relay;
import io.outboxer.spi.RelayProvider;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;

/** Creates the relay an outbox's configuration names: a built-in one or a {@link RelayProvider}. */
public final class Relays {

  /**
   * The relays Outboxer ships, by the name an outbox selects them with; each is made from the
   * outbox's settings and the time one relay call may take.
   */
  private static final Map<String, BuiltIn> BUILT_IN =
      Map.of(
          "jms",
          JmsRelay::create,
          "kafka",
          KafkaRelay::create,
          "sqs",
          (outbox, callBudget, executor) -> SqsFifoRelay.create(outbox, callBudget));

  /** Makes a built-in relay from an outbox's settings, its call budget and an executor. */
  @FunctionalInterface
  private interface BuiltIn {
    Relay create(OutboxConfig outbox, Duration callBudget, ExecutorService executor);
  }

  private Relays() {}

  /**
   * The relay of {@code outbox}, connected to its destination.
   *
   * @param callBudget how long one {@code deliver} call may take: the built-in relays bound their
   *     waits by it and send nothing new once it is spent, leaving the rest of the batch pending; a
   *     {@link RelayProvider} receives it too
   * @param executor runs the sends of the built-in JMS and Kafka relays, so that a call returns by
   *     its deadline while a send may still be blocked; in the server, the engine's managed
   *     executor
   * @throws OutboxException naming the key when the relay is unknown or a setting is missing
   */
  public static Relay create(OutboxConfig outbox, Duration callBudget, ExecutorService executor) {
    BuiltIn builtIn = BUILT_IN.get(outbox.relay());
    if (builtIn != null) {
      return builtIn.create(outbox, callBudget, executor);
    }
    TreeSet<String> known = new TreeSet<>(BUILT_IN.keySet());
    for (RelayProvider provider :
        ServiceLoader.load(RelayProvider.class, Relays.class.getClassLoader())) {
      if (provider.name().equals(outbox.relay())) {
        return provider.create(outbox.name(), outbox.relaySettings(), callBudget);
      }
      known.add(provider.name());
    }
    throw new OutboxException(
        "OUTBOXER-1007 unknown relay "
            + outbox.key("relay")
            + "="
            + outbox.relay()
            + ": expected one of "
            + known);
  }
}
