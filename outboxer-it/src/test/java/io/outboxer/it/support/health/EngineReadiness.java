package io.outboxer.it.support.health;

import io.outboxer.internal.health.OutboxerReadiness;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * The engine's readiness check in a test EAR without the admin web module, which declares it in the
 * product (so that waiting for {@code /health/ready} still waits for the engine).
 */
@Readiness
@ApplicationScoped
public class EngineReadiness implements HealthCheck {

  @Inject private OutboxerReadiness check;

  @Override
  public HealthCheckResponse call() {
    return check.call();
  }
}
