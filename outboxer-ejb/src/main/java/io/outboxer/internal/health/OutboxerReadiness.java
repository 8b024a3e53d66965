package io.outboxer.internal.health;

import io.outboxer.internal.config.OutboxerRuntime;
import io.outboxer.internal.store.Database;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready when the database answers, Outboxer's tables exist and no outbox was refused at startup (a
 * changed partition count on a live backlog).
 */
@Readiness
@ApplicationScoped
public class OutboxerReadiness implements HealthCheck {

  @Inject private Database database;
  @Inject private OutboxerRuntime runtime;

  @Override
  public HealthCheckResponse call() {
    HealthCheckResponseBuilder response = HealthCheckResponse.named("outboxer").up();
    String problem = database.schemaProblem();
    if (problem != null) {
      response.down().withData("database", problem);
    }
    Map<String, String> refused = runtime.refusedOutboxes();
    refused.forEach((outbox, reason) -> response.down().withData("outbox." + outbox, reason));
    return response.build();
  }
}
