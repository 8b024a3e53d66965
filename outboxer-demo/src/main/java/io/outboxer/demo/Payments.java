package io.outboxer.demo;

import io.outboxer.Outbox;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The demo's business transaction: records a payment in the demo's own table and publishes {@link
 * OrderPaid} in the same JTA transaction, so the event exists if and only if the payment does.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class Payments {

  @Resource(lookup = "jdbc/outboxer")
  private DataSource dataSource;

  @Inject private Outbox outbox;

  @PostConstruct
  void createTable() {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "create table if not exists demo_payment"
              + " (order_id text not null, paid_at varchar(40) not null)");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the demo's table demo_payment", e);
    }
  }

  /** Records that {@code orderId} was paid and returns the id of the published OrderPaid. */
  @TransactionAttribute(TransactionAttributeType.REQUIRED)
  public long markPaid(String orderId) {
    String paidAt = Instant.now().toString();
    record(orderId, paidAt);
    return outbox.publish(new OrderPaid(orderId, paidAt));
  }

  /**
   * Records the payment alone, publishing nothing: the same business transaction without Outboxer,
   * the baseline the benchmark measures {@link #markPaid}'s one {@code publish} against.
   */
  @TransactionAttribute(TransactionAttributeType.REQUIRED)
  public void recordPaid(String orderId) {
    record(orderId, Instant.now().toString());
  }

  private void record(String orderId, String paidAt) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement insert =
            c.prepareStatement("insert into demo_payment (order_id, paid_at) values (?, ?)")) {
      insert.setString(1, orderId);
      insert.setString(2, paidAt);
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot record the payment of order " + orderId, e);
    }
  }
}
