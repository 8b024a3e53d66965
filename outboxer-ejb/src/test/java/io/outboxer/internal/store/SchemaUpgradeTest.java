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

/** The schema applied at start upgrades a message table created before trace_parent existed. */
class SchemaUpgradeTest {

  @TempDir Path dir;

  @Test
  void aMessageTableWithoutTraceParentGetsTheColumnKeepingItsRowsAndTheSchemaStaysIdempotent()
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
    }
    Database database = new Database(dataSource);

    database.installSchema();
    database.installSchema();

    assertThat(columns(dataSource)).endsWith("last_error", "trace_parent");
    assertThat(database.schemaProblem()).isNull();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("select count(*), max(trace_parent) from outboxer_message")) {
      r.next();
      assertThat(r.getInt(1)).isEqualTo(1);
      assertThat(r.getString(2)).isNull();
    }
  }

  private static List<String> columns(SQLiteDataSource dataSource) throws Exception {
    List<String> columns = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        ResultSet r = c.getMetaData().getColumns(null, null, "outboxer_message", null)) {
      while (r.next()) {
        columns.add(r.getString("COLUMN_NAME"));
      }
    }
    return columns;
  }
}
