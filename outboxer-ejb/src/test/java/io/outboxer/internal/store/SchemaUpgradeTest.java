package io.outboxer.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/**
 * The schema applied at start upgrades tables created by an earlier version: a message table before
 * trace_parent existed, a lease table before repairs existed.
 */
class SchemaUpgradeTest {

  @TempDir Path dir;

  @Test
  void tablesWithoutTheNewerColumnsGetThemKeepingTheirRowsAndTheSchemaStaysIdempotent()
      throws Exception {
    SQLiteDataSource dataSource = new SQLiteDataSource();
    dataSource.setUrl("jdbc:sqlite:" + dir.resolve("old.db"));
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      // outboxer_message as the schema created it before the column existed.
      s.execute(
          "create table outboxer_message (id integer primary key autoincrement, outbox text not"
              + " null, partition_no integer not null, group_key text, message_type text not null,"
              + " payload text not null, state integer not null default 0, attempts integer not"
              + " null default 0, created_at integer not null default 0, next_attempt_at integer"
              + " not null default 0, last_attempt_at integer, last_error text)");
      s.execute(
          "insert into outboxer_message (outbox, partition_no, message_type, payload)"
              + " values ('orders', 0, 'T', '{}')");
      // outboxer_lease as the schema created it before the repair count existed.
      s.execute(
          "create table outboxer_lease (outbox text not null, partition_no integer not null,"
              + " owner text, epoch integer not null default 0, expires_at integer not null"
              + " default 0, primary key (outbox, partition_no))");
      s.execute("insert into outboxer_lease (outbox, partition_no, epoch) values ('orders', 0, 7)");
    }
    Database database = new Database(dataSource);

    database.installSchema();
    database.installSchema();

    assertThat(columns(dataSource, "outboxer_message")).endsWith("last_error", "trace_parent");
    assertThat(columns(dataSource, "outboxer_lease")).endsWith("expires_at", "repairs");
    assertThat(database.schemaProblem()).isNull();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("select count(*), max(trace_parent) from outboxer_message")) {
      r.next();
      assertThat(r.getInt(1)).isEqualTo(1);
      assertThat(r.getString(2)).isNull();
    }
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("select epoch, repairs from outboxer_lease")) {
      r.next();
      assertThat(r.getLong(1)).isEqualTo(7);
      assertThat(r.getLong(2)).isZero();
    }
  }

  private static List<String> columns(SQLiteDataSource dataSource, String table) throws Exception {
    List<String> columns = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        ResultSet r = c.getMetaData().getColumns(null, null, table, null)) {
      while (r.next()) {
        columns.add(r.getString("COLUMN_NAME"));
      }
    }
    return columns;
  }
}
