package io.outboxer.internal.relay;

import io.outboxer.OutboxException;
import io.outboxer.internal.config.OutboxSettings;
import io.outboxer.internal.relay.jms.JmsRelay;
import io.outboxer.spi.Relay;

/** Creates the relay an outbox's configuration names. */
public final class Relays {

  private Relays() {}

  /**
   * The relay of {@code outbox}, connected to its destination.
   *
   * @throws OutboxException naming the key when the relay is unknown or a setting is missing
   */
  public static Relay create(OutboxSettings outbox) {
    return switch (outbox.relay()) {
      case "jms" -> JmsRelay.create(outbox);
      default ->
          throw new OutboxException(
              "OUTBOXER-1007 unknown relay "
                  + outbox.key("relay")
                  + "="
                  + outbox.relay()
                  + ": expected jms");
    };
  }
}
