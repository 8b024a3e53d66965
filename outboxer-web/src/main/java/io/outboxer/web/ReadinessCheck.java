package io.outboxer.web;

import io.outboxer.internal.health.OutboxerReadiness;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Outboxer's readiness check, declared in this web module so that {@code /health/ready} lists it
 * once, whatever other web modules the EAR holds (see {@link OutboxerReadiness}).
 */
@Readiness
@ApplicationScoped
public class ReadinessCheck implements HealthCheck {

  @Inject private OutboxerReadiness check;

  @Override
  public HealthCheckResponse call() {
    return check.call();
  }
}
