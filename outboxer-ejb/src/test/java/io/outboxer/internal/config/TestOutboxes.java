package io.outboxer.internal.config;

import io.outboxer.internal.rules.Ordering;
import java.time.Duration;
import java.util.Map;

/** Outbox settings for unit tests: outbox "orders", group ordering, the defaults otherwise. */
public final class TestOutboxes {

  private TestOutboxes() {}

  /** Outbox "orders" delivered by {@code relay} with these {@code relay.<relay>.*} settings. */
  public static OutboxConfig orders(String relay, Map<String, String> relaySettings) {
    return new OutboxConfig(
        "orders",
        Ordering.GROUP,
        1,
        0,
        Duration.ofSeconds(1),
        Duration.ofSeconds(60),
        100,
        false,
        true,
        relay,
        relaySettings);
  }
}
