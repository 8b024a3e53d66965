package io.outboxer.it.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/** Looks at the outbox table through the server's data source (joining a running transaction). */
public final class Rows {

  private Rows() {}

  /** How many rows exist with this id, as seen by the current transaction if there is one. */
  public static long withId(long id) {
    return count("select count(*) from outboxer_message where id = ?", id);
  }

  /** How many rows of groups starting with {@code prefix} exist. */
  public static long ofGroupsStartingWith(String prefix) {
    return count("select count(*) from outboxer_message where group_key like ?", prefix + "%");
  }

  private static long count(String sql, Object parameter) {
    try {
      DataSource ds = (DataSource) new InitialContext().lookup("jdbc/outboxer");
      try (Connection c = ds.getConnection();
          PreparedStatement s = c.prepareStatement(sql)) {
        s.setObject(1, parameter);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    } catch (NamingException | SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
