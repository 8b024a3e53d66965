package io.outboxer.spi;

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
}
