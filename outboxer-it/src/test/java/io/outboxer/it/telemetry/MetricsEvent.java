package io.outboxer.it.telemetry;

import io.outboxer.Outboxed;
import io.outboxer.it.support.ItEvent;

/** Messages of the metrics tests' own outboxes, so that their gauges count only these. */
public final class MetricsEvent {

  private MetricsEvent() {}

  /** Outbox it-metrics: scripted relay, 3 attempts, 100 ms backoff. */
  @Outboxed("it-metrics")
  public static class Dying extends ItEvent {
    public Dying(String group, int seq) {
      super(group, seq);
    }
  }

  /** Outbox it-metrics-held: scripted relay, retried forever. */
  @Outboxed("it-metrics-held")
  public static class Held extends ItEvent {
    public Held(String group, int seq) {
      super(group, seq);
    }
  }
}
