package io.outboxer.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DialectTest {

  @Test
  void everyDatabaseHasEveryStatementWholeAndNoOtherName() {
    for (Dialect dialect : Dialect.values()) {
      for (Sql statement : Sql.values()) {
        if (dialect.has(statement)) {
          assertThat(dialect.sql(statement)).as(dialect + " " + statement).doesNotEndWith(";");
        } else {
          assertThat(statement.optional()).as(dialect + " lacks " + statement).isTrue();
        }
      }
      assertThat(dialect.schema()).as(dialect + " schema").hasSizeGreaterThan(5);
    }
  }

  @Test
  void onlyPostgresqlLocksWritersAndOnlyPostgresqlUsesItsClockExpression() {
    for (Sql lockOrLook :
        List.of(
            Sql.GROUP_LOCK,
            Sql.INSERT_ANNOUNCED,
            Sql.LAST_ID,
            Sql.IN_FLIGHT,
            Sql.OLDEST_IN_FLIGHT)) {
      assertThat(Dialect.POSTGRESQL.has(lockOrLook)).as(lockOrLook.name()).isTrue();
      assertThat(Dialect.SQLITE.has(lockOrLook)).as(lockOrLook.name()).isFalse();
    }
    assertThat(
            Arrays.stream(Sql.values())
                .filter(Dialect.SQLITE::has)
                .map(Dialect.SQLITE::sql)
                .filter(sql -> sql.contains("now()") || sql.contains("jsonb")))
        .isEmpty();
  }

  @Test
  void namedStatementsRunFromTheirNameToTheNextAndLeaveCommentsOut() {
    Map<String, String> named =
        SqlScripts.named(
            "-- a file comment\n\n-- name: ONE\nselect 1\n  from t -- kept\n-- dropped\n"
                + "-- name: TWO\nselect 2\n");

    assertThat(named)
        .containsExactly(
            Map.entry("ONE", "select 1\n  from t -- kept"), Map.entry("TWO", "select 2"));
    assertThatThrownBy(() -> SqlScripts.named("-- name: A\nselect 1\n-- name: A\nselect 2\n"))
        .hasMessage("statement A is named twice");
  }

  @Test
  void aDatabaseIsKnownByItsProductNameAndAnOtherIsRefusedByName() {
    assertThat(Dialect.of("PostgreSQL")).isEqualTo(Dialect.POSTGRESQL);
    assertThat(Dialect.of("SQLite")).isEqualTo(Dialect.SQLITE);
    assertThatThrownBy(() -> Dialect.of("MariaDB"))
        .hasMessage(
            "OUTBOXER-1004 unsupported database 'MariaDB' behind jdbc/outboxer: Outboxer supports"
                + " PostgreSQL and SQLite");
  }

  @Test
  void theDatabaseInUseIsDescribedByKindPlaceAndUserWithoutItsUrlParameters() {
    assertThat(
            Database.describe(
                Dialect.POSTGRESQL, "jdbc:postgresql://db:5432/orders?password=x", "app"))
        .isEqualTo("postgresql jdbc:postgresql://db:5432/orders as app");
    assertThat(
            Database.describe(
                Dialect.SQLITE, "jdbc:sqlite:/srv/outboxer.db?busy_timeout=30000", null))
        .isEqualTo("sqlite jdbc:sqlite:/srv/outboxer.db");
  }
}
