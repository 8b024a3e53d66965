package io.outboxer.it.relay;

import io.outboxer.spi.Relay;
import io.outboxer.spi.RelayProvider;
import java.util.Map;

/** Registers {@link RecordingRelay} as {@code relay=recording}. */
public final class RecordingRelayProvider implements RelayProvider {

  @Override
  public String name() {
    return "recording";
  }

  @Override
  public Relay create(String outbox, Map<String, String> settings) {
    return new RecordingRelay(outbox);
  }
}
