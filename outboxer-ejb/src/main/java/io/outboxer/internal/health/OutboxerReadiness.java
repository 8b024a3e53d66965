package io.outboxer.internal.health;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.OutboxerRuntime;
import io.outboxer.internal.store.Database;
import io.outboxer.internal.store.InFlightPublish;
import io.outboxer.internal.store.MessageStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * Ready when the database answers, Outboxer's tables exist, no outbox was refused at startup (a
 * changed partition count on a live backlog) and no partition's worker stalled (made no progress
 * for minutes, docs/operations.md). Partitions whose relay is unavailable are listed in the data,
 * without making the server unready, and so is, per partition, the oldest publishing transaction
 * still in flight, which holds back the partition's rows from its id on (ADR 0010).
 *
 * <p>The admin web module publishes it as the server's readiness check ({@code
 * io.outboxer.web.ReadinessCheck}): Liberty asks each web module of an EAR for its checks, and
 * every one of them sees this EJB jar's beans, so a check declared here would be listed once per
 * web module.
 */
@ApplicationScoped
public class OutboxerReadiness implements HealthCheck {

  @Inject private Database database;
  @Inject private OutboxerRuntime runtime;
  @Inject private MessageStore messages;

  @Override
  public HealthCheckResponse call() {
    HealthCheckResponseBuilder response = HealthCheckResponse.named("outboxer").up();
    String problem = database.schemaProblem();
    if (problem != null) {
      response.down().withData("database", problem);
    } else {
      response.withData("database", database.description());
    }
    Map<String, String> refused = runtime.refusedOutboxes();
    refused.forEach((outbox, reason) -> response.down().withData("outbox." + outbox, reason));
    // A destination's outage is shown but keeps the server ready: taking the application out of
    // the load balancer would not bring the destination back.
    runtime.unavailableRelays().forEach((where, why) -> response.withData("relay." + where, why));
    // A stalled worker delivers nothing until what holds it ends, or the server is restarted.
    runtime
        .stalledPartitions()
        .forEach((where, why) -> response.down().withData("stalled." + where, why));
    if (problem == null) {
      for (OutboxConfig outbox : runtime.settings().outboxes().values()) {
        if (outbox.waitsForWriters()) {
          for (InFlightPublish p : messages.oldestInFlight(outbox.name())) {
            response.withData(
                "inflight." + outbox.name() + ".partition." + p.partition(), describe(p));
          }
        }
      }
    }
    return response.build();
  }

  /** "from id 42, transaction open 31200ms, backend 5120": what an operator needs to find it. */
  static String describe(InFlightPublish p) {
    return "from id "
        + p.id()
        + (p.openMillis() == null ? "" : ", transaction open " + p.openMillis() + "ms")
        + (p.backend() == null ? ", a prepared transaction" : ", backend " + p.backend());
  }
}
