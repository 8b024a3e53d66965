package io.outboxer.internal.relay;

import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import io.outboxer.spi.Relay;
import io.outboxer.spi.RelayProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A provider for {@link RelaysTest}: its relay only remembers how it was made. */
public class EchoRelayProvider implements RelayProvider {

  /** What the provider was given. */
  public record EchoRelay(String outbox, Map<String, String> settings, Duration callBudget)
      implements Relay {
    @Override
    public DeliveryReport deliver(List<Envelope> batch) {
      return DeliveryReport.builder().build();
    }
  }

  @Override
  public String name() {
    return "echo";
  }

  @Override
  public Relay create(String outbox, Map<String, String> settings) {
    return create(outbox, settings, null);
  }

  @Override
  public Relay create(String outbox, Map<String, String> settings, Duration callBudget) {
    return new EchoRelay(outbox, settings, callBudget);
  }
}
