package io.outboxer.it.scenario;

import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** {@link ScenarioProperties} on SQLite. */
class SqliteScenarioIT extends ScenarioProperties {

  @BeforeContainer
  static void start() throws Exception {
    startServer("sqlite");
  }

  @AfterContainer
  static void stop() throws Exception {
    stopServer();
  }
}
