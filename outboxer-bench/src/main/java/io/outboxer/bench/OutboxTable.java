package io.outboxer.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The outbox table as the bench writes and reads it directly, on PostgreSQL ({@link Db}) or on
 * SQLite ({@link SqliteDb}): backlogs written exactly as {@code publish} writes them, what is left
 * of them, and the limit pipeline's connections and delete.
 */
interface OutboxTable {

  /** A connection of the caller's own. */
  Connection connect() throws SQLException;

  /** Deletes every message. */
  void clear() throws SQLException;

  /**
   * Inserts {@code count} messages of the demo's type into {@code outbox} in one transaction, round
   * robin over the orders {@code 0 .. groups - 1} (group {@code order:<n>}, in the partition {@code
   * publish} would choose), with {@code paidAt} as every payload's time, then gives the planner the
   * table's statistics.
   *
   * @return the newest id of each partition that got rows, in partition order
   */
  Long[] insertBacklog(String outbox, int count, int groups, int partitions, String paidAt)
      throws SQLException;

  /** Whether a row with one of {@code ids} is left: a lookup by primary key each. */
  boolean anyOf(Connection c, Long[] ids) throws SQLException;

  /** The statement that deletes a batch's rows, its ids bound as its one parameter. */
  String deleteByIds();

  /** Binds {@code ids} as {@link #deleteByIds}'s parameter. */
  void bindIds(Connection c, PreparedStatement delete, List<Long> ids) throws SQLException;
}
