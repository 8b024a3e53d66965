package io.outboxer.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.PersistenceException;
import jakarta.resource.spi.ResourceAllocationException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** What makes the engine purge SQLite's pool: a pool that gave no connection in time, only. */
class EngineTurnsTest {

  @Test
  void aConnectionWaitThatTimedOutIsToldByItsCauseOrItsMessage() {
    assertThat(
            EngineTurns.noConnectionCame(
                new PersistenceException(
                    new SQLTransientConnectionException(
                        "Connection not available", new ResourceAllocationException("full")))))
        .isTrue();
    assertThat(
            EngineTurns.noConnectionCame(
                new PersistenceException(
                    new SQLException(
                        "J2CA0045E: Connection not available while invoking method"
                            + " createOrWaitForConnection for resource jdbc/outboxer."))))
        .isTrue();
  }

  @Test
  void anyOtherFailureIsNot() {
    assertThat(
            EngineTurns.noConnectionCame(
                new PersistenceException(new SQLException("[SQLITE_BUSY] database is locked"))))
        .isFalse();
    assertThat(EngineTurns.noConnectionCame(new IllegalStateException((String) null))).isFalse();
  }
}
