package io.outboxer.it.relay;

import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import io.outboxer.spi.Relay;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * A relay that writes every delivery to the table it_delivery of the shared database: which
 * application delivered it, when (the server JVM's monotonic clock, shared by every application of
 * the server), and the partition's lease owner and epoch as the database had them at that moment.
 * Two applications with this relay are two engine instances of one cluster. The test creates the
 * table.
 */
public final class RecordingRelay implements Relay {

  private final String outbox;
  private final String app;
  private final DataSource dataSource;

  RecordingRelay(String outbox) {
    this.outbox = outbox;
    try {
      InitialContext jndi = new InitialContext();
      this.app = (String) jndi.lookup("java:app/AppName");
      this.dataSource = (DataSource) jndi.lookup("jdbc/outboxer");
    } catch (NamingException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public DeliveryReport deliver(List<Envelope> batch) {
    int partition = batch.get(0).partition();
    long started = System.nanoTime();
    try (Connection c = dataSource.getConnection()) {
      String owner;
      long epoch;
      try (PreparedStatement lease =
          c.prepareStatement(
              "select owner, epoch from outboxer_lease where outbox = ? and partition_no = ?")) {
        lease.setString(1, outbox);
        lease.setInt(2, partition);
        try (ResultSet rs = lease.executeQuery()) {
          rs.next();
          owner = rs.getString(1);
          epoch = rs.getLong(2);
        }
      }
      Thread.sleep(100); // a destination that takes its time
      long finished = System.nanoTime();
      try (PreparedStatement insert =
          c.prepareStatement("insert into it_delivery values (?, ?, ?, ?, ?, ?, ?, ?)")) {
        for (Envelope e : batch) {
          insert.setString(1, app);
          insert.setLong(2, e.id());
          insert.setString(3, e.groupKey());
          insert.setInt(4, e.partition());
          insert.setString(5, owner);
          insert.setLong(6, epoch);
          insert.setLong(7, started);
          insert.setLong(8, finished);
          insert.addBatch();
        }
        insert.executeBatch();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    DeliveryReport.Builder report = DeliveryReport.builder();
    batch.forEach(e -> report.confirmed(e.id()));
    return report.build();
  }
}
