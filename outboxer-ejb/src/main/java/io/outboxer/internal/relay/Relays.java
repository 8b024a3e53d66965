package io.outboxer.internal.relay;

import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxSettings;
import io.outboxer.internal.relay.jms.JmsRelay;
import io.outboxer.internal.relay.kafka.KafkaRelay;
import io.outboxer.spi.Relay;
import io.outboxer.spi.RelayProvider;
import java.util.ServiceLoader;
import java.util.TreeSet;

/** Creates the relay an outbox's configuration names: a built-in one or a {@link RelayProvider}. */
public final class Relays {

  private Relays() {}

  /**
   * The relay of {@code outbox}, connected to its destination.
   *
   * @throws OutboxException naming the key when the relay is unknown or a setting is missing
   */
  public static Relay create(OutboxSettings outbox) {
    switch (outbox.relay()) {
      case "jms":
        return JmsRelay.create(outbox);
      case "kafka":
        return KafkaRelay.create(outbox);
      default:
        break;
    }
    TreeSet<String> known = new TreeSet<>(java.util.List.of("jms", "kafka"));
    for (RelayProvider provider :
        ServiceLoader.load(RelayProvider.class, Relays.class.getClassLoader())) {
      if (provider.name().equals(outbox.relay())) {
        return provider.create(outbox.name(), outbox.relaySettings());
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
