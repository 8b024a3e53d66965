package io.outboxer.bench;

import io.outboxer.internal.rules.Partitioner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The SQLite file that P1 on SQLite runs on: the server's database once restarted on it (the server
 * creates the schema), and what the bench writes and reads in it directly, as {@link Db} does on
 * PostgreSQL: backlogs of the demo's {@code OrderPaid} rows exactly as {@code publish} writes them,
 * inserted in one transaction.
 */
final class SqliteDb implements OutboxTable {

  private static final String INSERT =
      "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload)"
          + " values (?, ?, ?, ?, ?)";

  private final Path file;

  /** A database at {@code file}, which is deleted first with its journal files. */
  SqliteDb(Path file) throws IOException {
    this.file = file;
    Files.createDirectories(file.getParent());
    for (String suffix : new String[] {"", "-wal", "-shm"}) {
      Files.deleteIfExists(Path.of(file + suffix));
    }
  }

  Path file() {
    return file;
  }

  /** The server's settings: a writer waits up to 30 s for another's transaction, in WAL mode. */
  @Override
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(
        "jdbc:sqlite:" + file + "?busy_timeout=30000&journal_mode=WAL");
  }

  @Override
  public String deleteByIds() {
    return "delete from outboxer_message where id in (select value from json_each(?))";
  }

  @Override
  public void bindIds(Connection c, PreparedStatement delete, List<Long> ids) throws SQLException {
    delete.setString(1, json(ids.stream()));
  }

  @Override
  public Long[] insertBacklog(String outbox, int count, int groups, int partitions, String paidAt)
      throws SQLException {
    int[] parts = new int[groups];
    for (int g = 0; g < groups; g++) {
      parts[g] = Partitioner.partitionOf("order:" + g, partitions);
    }
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try (PreparedStatement insert = c.prepareStatement(INSERT)) {
        for (int i = 0; i < count; i++) {
          int g = i % groups;
          insert.setString(1, outbox);
          insert.setInt(2, parts[g]);
          insert.setString(3, "order:" + g);
          insert.setString(4, Db.TYPE);
          insert.setString(5, "{\"orderId\":\"" + g + "\",\"paidAt\":\"" + paidAt + "\"}");
          insert.addBatch();
          if (i % 10_000 == 9_999) {
            insert.executeBatch();
          }
        }
        insert.executeBatch();
      }
      List<Long> newest = new ArrayList<>();
      try (PreparedStatement s =
          c.prepareStatement(
              "select max(id) from outboxer_message where outbox = ?"
                  + " group by partition_no order by partition_no")) {
        s.setString(1, outbox);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            newest.add(r.getLong(1));
          }
        }
      }
      c.commit();
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute("analyze outboxer_message");
      }
      return newest.toArray(Long[]::new);
    }
  }

  @Override
  public boolean anyOf(Connection c, Long[] ids) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "select 1 from outboxer_message where id in (select value from json_each(?)) limit 1")) {
      s.setString(1, json(Stream.of(ids)));
      try (ResultSet r = s.executeQuery()) {
        return r.next();
      }
    }
  }

  @Override
  public void clear() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("delete from outboxer_message");
    }
  }

  private static String json(Stream<Long> ids) {
    return ids.map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
  }
}
