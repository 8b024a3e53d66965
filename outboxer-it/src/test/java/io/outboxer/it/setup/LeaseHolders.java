package io.outboxer.it.setup;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

/** Who holds the demo outbox's partitions, read from a PostgreSQL database the servers share. */
public final class LeaseHolders {

  private LeaseHolders() {}

  /** The owners of the outbox "default"'s live leases, with how many partitions each holds. */
  public static Map<String, Long> of(String jdbcUrl) throws SQLException {
    Map<String, Long> holders = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "select owner, count(*) from outboxer_lease where outbox = 'default'"
                    + " and owner is not null"
                    + " and expires_at > (extract(epoch from now()) * 1000)::bigint"
                    + " group by owner")) {
      while (rs.next()) {
        holders.put(rs.getString(1), rs.getLong(2));
      }
    }
    return holders;
  }
}
