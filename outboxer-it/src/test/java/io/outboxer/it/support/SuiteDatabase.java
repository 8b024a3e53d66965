package io.outboxer.it.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The PostgreSQL suite's database as the test JVM sees it, for tests that run as a client of the
 * server ({@code @RunAsClient}); inside the server, use {@link Sql}.
 */
public final class SuiteDatabase {

  private SuiteDatabase() {}

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(
        System.getProperty("outboxer.it.pg.url") + System.getProperty("outboxer.it.pg.database"),
        "postgres",
        "");
  }

  public static void execute(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  public static long count(String sql) throws SQLException {
    return ((Number) rows(sql).get(0)[0]).longValue();
  }

  /** The rows of a query, each as an array of its columns. */
  public static List<Object[]> rows(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      List<Object[]> rows = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        Object[] row = new Object[n];
        for (int i = 0; i < n; i++) {
          row[i] = rs.getObject(i + 1);
        }
        rows.add(row);
      }
      return rows;
    }
  }
}
