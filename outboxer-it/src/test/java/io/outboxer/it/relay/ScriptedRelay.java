package io.outboxer.it.relay;

import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import io.outboxer.spi.Relay;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A relay whose failures the tests choose: it fails every message the outbox's {@link Script} says,
 * keeps the relay contract (a scope stops at its first failure), writes every attempt to the {@link
 * Journal}, and hangs before it answers when the script says.
 */
public final class ScriptedRelay implements Relay {

  private final String outbox;

  ScriptedRelay(String outbox) {
    this.outbox = outbox;
  }

  @Override
  public DeliveryReport deliver(List<Envelope> batch) {
    DeliveryReport.Builder report = DeliveryReport.builder();
    Set<String> stopped = new HashSet<>();
    for (Envelope e : batch) {
      if (e.orderingScope() != null && stopped.contains(e.orderingScope())) {
        continue;
      }
      boolean fail = Script.failing(outbox).test(e);
      Journal.record(e, fail);
      if (fail) {
        report.failed(e.id(), "scripted failure of message " + e.id());
        if (e.orderingScope() != null) {
          stopped.add(e.orderingScope());
        }
      } else {
        report.confirmed(e.id());
      }
    }
    hang(Script.takeHang(outbox));
    return report.build();
  }

  private static void hang(Duration time) {
    try {
      Thread.sleep(time.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
