package io.outboxer.spi;

import java.time.Duration;
import java.util.Map;

/**
 * Makes a relay that Outboxer does not ship available by name. Implementations are found with
 * {@link java.util.ServiceLoader} (a {@code META-INF/services/io.outboxer.spi.RelayProvider} file)
 * in a library the engine's module can see, such as the EAR's {@code lib/}; an outbox selects one
 * with {@code outboxer.outbox.<name>.relay=<provider name>}.
 */
public interface RelayProvider {

  /**
   * The name outboxes use to select this relay; built-in names ({@code jms}, {@code kafka}, {@code
   * sqs}) take precedence.
   */
  String name();

  /**
   * Creates the relay of one outbox.
   *
   * @param outbox the outbox name
   * @param settings the outbox's {@code relay.<name>.*} keys, with that prefix removed
   * @throws io.outboxer.OutboxException naming the key when a setting is missing or invalid
   */
  Relay create(String outbox, Map<String, String> settings);

  /**
   * Creates the relay of one outbox, which must finish each {@link Relay#deliver} call within
   * {@code callBudget} (a third of {@code outboxer.lease.ttl}): bound every wait by it and send
   * nothing new once it is spent, leaving the rest of the batch unreported. Otherwise a slow
   * destination could still be receiving a batch when another server has taken the partition's
   * lease. The engine calls this method; by default it ignores the budget.
   *
   * @param outbox the outbox name
   * @param settings the outbox's {@code relay.<name>.*} keys, with that prefix removed
   * @param callBudget the time one {@code deliver} call may take
   */
  default Relay create(String outbox, Map<String, String> settings, Duration callBudget) {
    return create(outbox, settings);
  }
}
