package io.outboxer.it.relay;

import io.outboxer.spi.Relay;
import io.outboxer.spi.RelayProvider;
import java.util.Map;

/** Registers {@link ScriptedRelay} as {@code relay=scripted}. */
public final class ScriptedRelayProvider implements RelayProvider {

  @Override
  public String name() {
    return "scripted";
  }

  @Override
  public Relay create(String outbox, Map<String, String> settings) {
    return new ScriptedRelay(outbox);
  }
}
