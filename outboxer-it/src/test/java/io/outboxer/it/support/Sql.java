package io.outboxer.it.support;

import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.naming.InitialContext;
import javax.sql.DataSource;

/**
 * Plain SQL on the server's data source. Inside a transaction it joins it (and sees its uncommitted
 * rows); outside one it runs in a transaction of its own, so that the connection goes back to the
 * pool at once (SQLite's pool holds one).
 */
public final class Sql {

  private Sql() {}

  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private static <T> T inTransaction(Work<T> work) {
    try {
      InitialContext jndi = new InitialContext();
      DataSource ds = (DataSource) jndi.lookup("jdbc/outboxer");
      TransactionSynchronizationRegistry registry =
          (TransactionSynchronizationRegistry)
              jndi.lookup("java:comp/TransactionSynchronizationRegistry");
      if (registry.getTransactionStatus() != Status.STATUS_NO_TRANSACTION) {
        try (Connection c = ds.getConnection()) {
          return work.run(c);
        }
      }
      UserTransaction tx = (UserTransaction) jndi.lookup("java:comp/UserTransaction");
      tx.begin();
      try {
        T result;
        try (Connection c = ds.getConnection()) {
          result = work.run(c);
        }
        tx.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        tx.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static String database() {
    return inTransaction(
        c ->
            c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres")
                ? "postgresql"
                : "sqlite");
  }

  /** The rows of a query, each as an array of its columns. */
  public static List<Object[]> query(String sql, Object... parameters) {
    return inTransaction(
        c -> {
          try (PreparedStatement s = prepare(c, sql, parameters);
              ResultSet rs = s.executeQuery()) {
            List<Object[]> rows = new ArrayList<>();
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
              Object[] row = new Object[columns];
              for (int i = 0; i < columns; i++) {
                row[i] = rs.getObject(i + 1);
              }
              rows.add(row);
            }
            return rows;
          }
        });
  }

  public static long number(String sql, Object... parameters) {
    return ((Number) query(sql, parameters).get(0)[0]).longValue();
  }

  public static int update(String sql, Object... parameters) {
    return inTransaction(
        c -> {
          try (PreparedStatement s = prepare(c, sql, parameters)) {
            return s.executeUpdate();
          }
        });
  }

  private static PreparedStatement prepare(Connection c, String sql, Object... parameters)
      throws SQLException {
    PreparedStatement s = c.prepareStatement(sql);
    for (int i = 0; i < parameters.length; i++) {
      s.setObject(i + 1, parameters[i]);
    }
    return s;
  }
}
