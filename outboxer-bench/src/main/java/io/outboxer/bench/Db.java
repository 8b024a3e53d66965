package io.outboxer.bench;

import io.outboxer.internal.rules.Partitioner;
import io.outboxer.internal.store.RowState;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The bench's own PostgreSQL database (created at start, dropped at the end) and what the bench
 * writes and reads in it directly: backlogs of the demo's {@code OrderPaid} rows, exactly as {@code
 * publish} writes them (the type's name, JSON-B's payload, the group key and Outboxer's partition
 * of it), inserted by one SQL statement in one transaction.
 */
final class Db implements AutoCloseable, OutboxTable {

  static final String OUTBOX = "default";
  static final String TYPE = "io.outboxer.demo.OrderPaid";

  private static final String INSERT_BACKLOG =
      """
      insert into outboxer_message (outbox, partition_no, group_key, message_type, payload)
      select ?, g.part, 'order:' || g.order_id, ?,
             '{"orderId":"' || g.order_id || '","paidAt":"' || ? || '"}'
        from generate_series(0, ? - 1) as s(i)
        join unnest(?::text[], ?::int[]) with ordinality as g(order_id, part, n)
          on g.n = s.i % ? + 1
       order by s.i
      """;

  private final String server;
  final String name;

  Db(String server, String name) {
    this.server = server;
    this.name = name;
    admin("drop database if exists " + name + " with (force)");
    admin("create database " + name);
  }

  String url() {
    return server + name + "?user=postgres";
  }

  @Override
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url());
  }

  @Override
  public String deleteByIds() {
    return LimitStatements.DELETE_POSTGRESQL;
  }

  @Override
  public void clear() throws SQLException {
    execute("truncate outboxer_message");
  }

  @Override
  public Long[] insertBacklog(String outbox, int count, int groups, int partitions, String paidAt)
      throws SQLException {
    return insertBeside(outbox, count, groups, partitions, -1, paidAt);
  }

  @Override
  public void bindIds(Connection c, PreparedStatement delete, List<Long> ids) throws SQLException {
    delete.setArray(1, c.createArrayOf("bigint", ids.toArray()));
  }

  /**
   * Inserts {@code count} messages into {@code outbox} in one transaction, round robin over the
   * orders {@code firstOrder .. firstOrder + groups - 1} (group {@code order:<n>}), with {@code
   * paidAt} as every payload's time, and analyzes the table.
   */
  void insert(String outbox, int count, int groups, int firstOrder, int partitions, String paidAt)
      throws SQLException {
    try (Connection c = connect()) {
      insertRows(c, outbox, count, groups, firstOrder, partitions, -1, paidAt);
      analyze(c);
    }
  }

  /**
   * Inserts a backlog as {@link #insert} does (and analyzes the table), from order 0, with {@code
   * groups} groups none of which falls into partition {@code skipped}: the other partitions'
   * backlog beside one kept empty.
   *
   * @return the newest id of each partition that got rows
   */
  Long[] insertBeside(
      String outbox, int count, int groups, int partitions, int skipped, String paidAt)
      throws SQLException {
    try (Connection c = connect()) {
      insertRows(c, outbox, count, groups, 0, partitions, skipped, paidAt);
      analyze(c);
      return newest(c, outbox, 0);
    }
  }

  /**
   * This table as an idle outbox leaves it to the planner (P1c): {@link OutboxTable#clear} leaves
   * it empty and analyzed, its pages kept (what autovacuum's analyze of a drained outbox records),
   * and a backlog is inserted without an analyze after it, so that the planner counts it as an
   * empty table's row or two until the next analyze.
   */
  OutboxTable analyzedEmpty() {
    Db db = this;
    return new OutboxTable() {
      @Override
      public Connection connect() throws SQLException {
        return db.connect();
      }

      /**
       * Leaves the table empty with the pages of an earlier burst of 100,000 rows: a truncated
       * table has none, and the planner would then estimate its rows from its size.
       */
      @Override
      public void clear() throws SQLException {
        db.clear();
        try (Connection c = connect()) {
          insertRows(c, OUTBOX, 100_000, 1_000, 0, 1, -1, "2026-01-01T00:00:00Z");
          try (Statement s = c.createStatement()) {
            s.execute("delete from outboxer_message");
          }
          analyze(c);
        }
      }

      @Override
      public Long[] insertBacklog(
          String outbox, int count, int groups, int partitions, String paidAt) throws SQLException {
        try (Connection c = connect()) {
          long before = lastId(c);
          insertRows(c, outbox, count, groups, 0, partitions, -1, paidAt);
          return newest(c, outbox, before);
        }
      }

      @Override
      public boolean anyOf(Connection c, Long[] ids) throws SQLException {
        return db.anyOf(c, ids);
      }

      @Override
      public String deleteByIds() {
        return db.deleteByIds();
      }

      @Override
      public void bindIds(Connection c, PreparedStatement delete, List<Long> ids)
          throws SQLException {
        db.bindIds(c, delete, ids);
      }
    };
  }

  /**
   * Whether any row with one of {@code ids} is left: a lookup by primary key each, which meets only
   * the index entries of those ids, deleted or not.
   */
  @Override
  public boolean anyOf(Connection c, Long[] ids) throws SQLException {
    return !left(c, ids).isEmpty();
  }

  /** Which of {@code ids} are left, looked up by primary key. */
  Set<Long> left(Connection c, Long[] ids) throws SQLException {
    Set<Long> left = new HashSet<>();
    try (PreparedStatement s =
        c.prepareStatement("select id from outboxer_message where id = any(?)")) {
      s.setArray(1, c.createArrayOf("int8", ids));
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          left.add(r.getLong(1));
        }
      }
    }
    return left;
  }

  /** How many rows with one of {@code ids} are left, looked up by primary key. */
  long countOf(Connection c, Long[] ids) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement("select count(*) from outboxer_message where id = any(?)")) {
      s.setArray(1, c.createArrayOf("int8", ids));
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  /**
   * The newest row of each partition of {@code outbox} that has rows above id {@code above}, in
   * partition order.
   */
  private static Long[] newest(Connection c, String outbox, long above) throws SQLException {
    List<Long> newest = new ArrayList<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "select max(id) from outboxer_message where id > ? and outbox = ?"
                + " group by partition_no order by partition_no")) {
      s.setLong(1, above);
      s.setString(2, outbox);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          newest.add(r.getLong(1));
        }
      }
    }
    return newest.toArray(Long[]::new);
  }

  /**
   * Inserts a backlog as {@link #insert} does and, in the same transaction (before any worker can
   * see it), analyzes the table (its own rows counted) and finds the newest of the backlog's rows
   * in each partition, so that the drain can be timed from the commit.
   *
   * @return the newest id of each partition that got rows
   */
  Long[] insertNewest(
      String outbox, int count, int groups, int firstOrder, int partitions, String paidAt)
      throws SQLException {
    return insertNewest(outbox, count, groups, firstOrder, partitions, paidAt, false);
  }

  /**
   * Inserts a backlog of dead messages as {@link #insertNewest} does: every row is made dead in the
   * same transaction, so that no worker's poll can deliver any of it before an operator revives it.
   *
   * @return the newest id of each partition that got rows
   */
  Long[] insertDead(String outbox, int count, int groups, int partitions, String paidAt)
      throws SQLException {
    return insertNewest(outbox, count, groups, 0, partitions, paidAt, true);
  }

  private Long[] insertNewest(
      String outbox,
      int count,
      int groups,
      int firstOrder,
      int partitions,
      String paidAt,
      boolean dead)
      throws SQLException {
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      long before = lastId(c);
      insertRows(c, outbox, count, groups, firstOrder, partitions, -1, paidAt);
      if (dead) {
        try (PreparedStatement update =
            c.prepareStatement(
                "update outboxer_message set state = "
                    + RowState.DEAD.code()
                    + " where outbox = ? and id > ?")) {
          update.setString(1, outbox);
          update.setLong(2, before);
          update.executeUpdate();
        }
      }
      analyze(c);
      Long[] newest = newest(c, outbox, before);
      c.commit();
      return newest;
    }
  }

  /**
   * Inserts a backlog as {@link #insert} does (and analyzes the table) and, in the same transaction
   * (before any worker can see it), finds per partition the last id of each of its first {@code
   * windows} windows of {@code perPartition} rows, and how many rows each window holds (fewer when
   * the partition runs out).
   *
   * @return per partition, per window: {@code [last id, rows]}
   */
  long[][][] insertWindows(
      String outbox,
      int count,
      int groups,
      int partitions,
      String paidAt,
      int perPartition,
      int windows)
      throws SQLException {
    long[][][] bounds = new long[partitions][windows][];
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      insertRows(c, outbox, count, groups, 0, partitions, -1, paidAt);
      try (PreparedStatement window =
          c.prepareStatement(
              "select max(id), count(*) from (select id from outboxer_message"
                  + " where outbox = ? and partition_no = ? and id > ? order by id limit ?) w")) {
        for (int p = 0; p < partitions; p++) {
          long after = 0;
          for (int k = 0; k < windows; k++) {
            window.setString(1, outbox);
            window.setInt(2, p);
            window.setLong(3, after);
            window.setInt(4, perPartition);
            try (ResultSet r = window.executeQuery()) {
              r.next();
              bounds[p][k] = new long[] {r.getLong(1), r.getLong(2)};
              after = r.getLong(1);
            }
          }
        }
      }
      c.commit();
      c.setAutoCommit(true);
      analyze(c);
    }
    return bounds;
  }

  /**
   * The backlog's rows, over the first {@code groups} orders from {@code firstOrder} whose group
   * does not fall into partition {@code skipped} (-1: every order).
   */
  private static void insertRows(
      Connection c,
      String outbox,
      int count,
      int groups,
      int firstOrder,
      int partitions,
      int skipped,
      String paidAt)
      throws SQLException {
    String[] orders = new String[groups];
    Integer[] parts = new Integer[groups];
    for (int g = 0, order = firstOrder; g < groups; order++) {
      int part = Partitioner.partitionOf("order:" + order, partitions);
      if (part != skipped) {
        orders[g] = Integer.toString(order);
        parts[g++] = part;
      }
    }
    try (PreparedStatement insert = c.prepareStatement(INSERT_BACKLOG)) {
      insert.setString(1, outbox);
      insert.setString(2, TYPE);
      insert.setString(3, paidAt);
      insert.setInt(4, count);
      insert.setArray(5, c.createArrayOf("text", orders));
      insert.setArray(6, c.createArrayOf("int4", parts));
      insert.setInt(7, groups);
      int inserted = insert.executeUpdate();
      if (inserted != count) {
        throw new IllegalStateException("inserted " + inserted + " rows, not " + count);
      }
    }
  }

  /**
   * The first ready id of a partition of {@code outbox} (0 when it has none), read as the worker
   * reads its batches: the range {@code state < 1} of the scan index, in id order.
   */
  long firstReady(Connection c, String outbox, int partition) throws SQLException {
    try (PreparedStatement s =
        c.prepareStatement(
            "select id from outboxer_message where outbox = ? and partition_no = ? and state < 1"
                + " order by state, id limit 1")) {
      s.setString(1, outbox);
      s.setInt(2, partition);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? r.getLong(1) : 0;
      }
    }
  }

  /**
   * Gives the planner the table's new statistics at once, as autovacuum would some time after a
   * backlog built up: the product and the limit pipeline read with the same plans from the start.
   */
  private static void analyze(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("analyze outboxer_message");
    }
  }

  private static long lastId(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery("select max(id) from outboxer_message")) {
      r.next();
      return r.getLong(1);
    }
  }

  /** An order id whose group {@code order:<id>} falls into each partition, in partition order. */
  static List<String> orderPerPartition(String prefix, int partitions) {
    List<String> orders = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      for (int n = 0; ; n++) {
        if (Partitioner.partitionOf("order:" + prefix + n, partitions) == p) {
          orders.add(prefix + n);
          break;
        }
      }
    }
    return orders;
  }

  /** True while {@code outbox} holds any row. */
  boolean anyLeft(String outbox) throws SQLException {
    return number(
            "select count(*) from (select 1 from outboxer_message where outbox = '"
                + outbox
                + "' limit 1) t")
        > 0;
  }

  /** The rows of {@code outbox}, whatever their state. */
  long count(String outbox) throws SQLException {
    try (Connection c = connect();
        PreparedStatement s =
            c.prepareStatement("select count(*) from outboxer_message where outbox = ?")) {
      s.setString(1, outbox);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  long number(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getLong(1);
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** The process ids of this database's backends (the server's pool and the bench's clients). */
  List<Long> backendPids() throws SQLException {
    List<Long> pids = new ArrayList<>();
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("select pid from pg_stat_activity where datname = '" + name + "'")) {
      while (r.next()) {
        pids.add(r.getLong(1));
      }
    }
    return pids;
  }

  String version() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("show server_version")) {
      r.next();
      return r.getString(1);
    }
  }

  private void admin(String sql) {
    try (Connection c = DriverManager.getConnection(server + "postgres?user=postgres");
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL at " + server + " refused: " + sql, e);
    }
  }

  @Override
  public void close() {
    admin("drop database if exists " + name + " with (force)");
  }
}
