package io.outboxer.internal.rules;

import java.time.Duration;

/**
 * The arithmetic of a partition's lease of {@code ttl} (ADR 0003): a worker renews it once a third
 * of the ttl has passed since the last renewal, so a batch always starts with at least two thirds
 * left; a relay call gets one third (the call budget), which leaves the completing transaction the
 * last third before the lease could expire. Nodes heartbeat every third of the ttl, count as
 * delivering while their heartbeat is younger than the ttl, and are forgotten after ten ttls.
 *
 * @param ttl how long a lease lasts without renewal ({@code outboxer.lease.ttl})
 */
public record LeaseTerms(Duration ttl) {

  public LeaseTerms {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("a lease ttl must be above zero, was " + ttl);
    }
  }

  /** How long after taking or renewing the lease the worker renews it again. */
  public Duration renewAfter() {
    return ttl.dividedBy(3);
  }

  /** How long one relay call may take. */
  public Duration callBudget() {
    return ttl.dividedBy(3);
  }

  /**
   * How long after the start of a database call that took or renewed the lease the worker counts it
   * as its own: the ttl, which the database counts from when it ran the statement, no earlier, less
   * a tenth for the two clocks' drift. No relay call of the worker's runs past it.
   */
  public Duration heldFor() {
    return ttl.minus(ttl.dividedBy(10));
  }

  /** How often a delivering node tells the database it is alive. */
  public Duration heartbeatInterval() {
    return ttl.dividedBy(3);
  }

  /** How long a silent node's heartbeat row is kept before it is deleted. */
  public Duration forgetNodesAfter() {
    return ttl.multipliedBy(10);
  }
}
