package io.outboxer.it.scenario;

import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** {@link ScenarioProperties} on PostgreSQL. */
class PostgresScenarioIT extends ScenarioProperties {

  @BeforeContainer
  static void start() throws Exception {
    startServer("postgresql");
  }

  @AfterContainer
  static void stop() throws Exception {
    stopServer();
  }
}
