package io.outboxer.it.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.internal.store.Database;
import io.outboxer.internal.store.Dialect;
import io.outboxer.internal.store.Sql;
import io.outboxer.it.setup.TestServices;
import io.outboxer.it.support.OnDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The plans of the statements that the worker runs per batch and of the operators' repairs, on an
 * outbox holding a backlog of 200,000 rows, whatever its statistics say (ADR 0017): never analyzed,
 * analyzed while empty, analyzed empty after a drain (its pages kept: the planner then counts the
 * backlog as no row, and prices any walk of an index as nothing), vacuumed after a drain that left
 * one row (a row or two), or analyzed full. Analyzed empty after a drain, the statistics count the
 * backlog as no row at all, and no plan holds: the engine takes them again first (STATISTICS_STALE,
 * which this test waits for, as the engine's check after a full batch read would). Each statement
 * reads its rows through the index made for it, with neither a sequential scan nor a sort of the
 * outbox's rows, so that a batch costs the same whatever the backlog: on a plan of the drained
 * table's statistics, deleting a batch scanned all 200,000 rows against its 2,000 ids (13 s) and
 * reading one sorted the partition's backlog.
 *
 * <p>The worker's statements are planned as in its transactions, after {@link Sql#PLAN_BY_INDEX};
 * the repairs as in the caller's transaction, which keeps its own settings.
 */
@OnDatabase(value = "postgresql", because = "PostgreSQL plans statements by its statistics")
class StatementPlansIT {

  private static final int BACKLOG = 200_000;
  private static final int PARTITIONS = 8;
  private static final int BATCH = 2_000;
  private static final String OUTBOX = "plans";
  private static final Pattern PARAMETER = Pattern.compile("(?<![:\\w]):(\\w+)");
  private static final Pattern SCAN_OF_OUTBOX =
      Pattern.compile(
          "(Seq Scan|Scan using \\w+|Bitmap Index Scan on \\w+)( on outboxer_message)?");

  /** What the planner knows of the outbox's table when the backlog arrives. */
  enum Statistics {
    NEVER_ANALYZED,
    ANALYZED_EMPTY,
    ANALYZED_EMPTY_AFTER_A_DRAIN,
    VACUUMED_AFTER_A_DRAIN_BUT_ONE_ROW,
    ANALYZED_FULL
  }

  private static PGSimpleDataSource dataSource;
  private static String name;

  @BeforeAll
  static void database() {
    name = System.getProperty("outboxer.it.pg.database") + "_plans";
    dataSource = new PGSimpleDataSource();
    dataSource.setUrl(System.getProperty("outboxer.it.pg.url") + name);
    dataSource.setUser("postgres");
  }

  @ParameterizedTest
  @EnumSource(Statistics.class)
  void everyStatementReadsByItsIndexWithoutScanningOrSortingTheBacklog(Statistics statistics)
      throws Exception {
    TestServices.recreatePostgres(name);
    new Database(dataSource).installSchema();
    try (Connection c = dataSource.getConnection()) {
      fill(c, statistics);
      if (statistics == Statistics.ANALYZED_EMPTY_AFTER_A_DRAIN) {
        // Counted as no row, every walk of an index is priced as nothing: no plan holds. The
        // engine sees such statistics far behind the table after a full batch read, before its
        // completion, and takes them again.
        await("the statistics seen as stale")
            .atMost(Duration.ofSeconds(30))
            .until(() -> column(c, Dialect.POSTGRESQL.sql(Sql.STATISTICS_STALE)).get(0) == 1);
        // As the engine takes them: in one transaction, after the turn, from its smaller sample.
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
          s.execute(Dialect.POSTGRESQL.sql(Sql.STATISTICS_TURN));
          s.execute(Dialect.POSTGRESQL.sql(Sql.ANALYZE_OUTBOX));
        }
        c.commit();
        c.setAutoCommit(true);
        assertThat(column(c, Dialect.POSTGRESQL.sql(Sql.STATISTICS_STALE)))
            .as("fresh once taken again: the next full batch does not take them again")
            .containsExactly(0L);
      }
      List<Long> readyIds =
          column(
              c,
              "select id from outboxer_message where outbox = '"
                  + OUTBOX
                  + "' and partition_no = 1 and state = 0 order by id limit "
                  + BATCH);
      long held = column(c, "select min(id) from outboxer_message where state = 1").get(0);
      String ids =
          readyIds.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
      String groups =
          LongStream.range(0, 1_000)
              .mapToObj(g -> "\"g" + g + "\"")
              .collect(Collectors.joining(",", "[", "]"));
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("outbox", OUTBOX);
      p.put("partition", 0);
      p.put("bound", Long.MAX_VALUE);
      p.put("limit", BATCH);
      p.put("from", readyIds.get(0));
      p.put("groups", groups);
      p.put("ids", ids);
      p.put("id", readyIds.get(1));
      p.put("error", "refused");
      p.put("delay", 1_000);
      p.put("group", "blocked");
      p.put("state", 2);
      p.put("after", 0);

      Set<String> pkey = Set.of("outboxer_message_pkey");
      Map<Sql, Set<String>> worker = new LinkedHashMap<>();
      worker.put(
          Sql.PROMOTE_DUE, Set.of("outboxer_message_waiting", "outboxer_message_waiting_group"));
      worker.put(
          Sql.HEAD_WAITS, Set.of("outboxer_message_waiting", "outboxer_message_waiting_group"));
      worker.put(Sql.READ_READY, Set.of("outboxer_message_scan"));
      worker.put(Sql.READ_READY_FROM, Set.of("outboxer_message_scan"));
      worker.put(Sql.READ_READY_PAST_BLOCKED, Set.of("outboxer_message_scan"));
      worker.put(
          Sql.PARTITION_BLOCKED,
          Set.of(
              "outboxer_message_waiting",
              "outboxer_message_waiting_group",
              "outboxer_message_held"));
      worker.put(
          Sql.BLOCKED_FROM,
          Set.of(
              "outboxer_message_waiting_group",
              "outboxer_message_held",
              "outboxer_message_retried"));
      worker.put(Sql.HOLD_ROWS, pkey);
      worker.put(Sql.DELETE_ROWS, pkey);
      worker.put(Sql.FAIL_DEAD, pkey);
      worker.put(Sql.FAIL_RETRY, pkey);
      worker.put(Sql.RELEASE_GROUP, Set.of("outboxer_message_held"));
      for (Map.Entry<Sql, Set<String>> statement : worker.entrySet()) {
        assertReadsBy(c, statement.getKey(), p, true, statement.getValue(), statistics);
      }

      Map<Sql, Set<String>> repairs = new LinkedHashMap<>();
      repairs.put(Sql.FIND_MESSAGE, pkey);
      repairs.put(Sql.DELETE_MESSAGE, pkey);
      repairs.put(Sql.REVIVE_DEAD, Set.of("outboxer_message_pkey", "outboxer_message_dead"));
      repairs.put(Sql.REVIVE_DEAD_GROUP, Set.of("outboxer_message_dead"));
      repairs.put(Sql.REVIVE_ALL_DEAD, Set.of("outboxer_message_dead"));
      repairs.put(Sql.PAGE_MESSAGES, Set.of("outboxer_message_dead"));
      repairs.put(
          Sql.GROUP_FAILING,
          Set.of(
              "outboxer_message_waiting",
              "outboxer_message_waiting_group",
              "outboxer_message_retried"));
      repairs.put(
          Sql.RETRY_GROUP_NOW,
          Set.of("outboxer_message_waiting", "outboxer_message_waiting_group"));
      repairs.put(Sql.RELEASE_OUTBOX_HELD, Set.of("outboxer_message_held"));
      repairs.put(Sql.MARK_REPAIR_OF_MESSAGE, pkey);
      p.put("id", held);
      for (Map.Entry<Sql, Set<String>> statement : repairs.entrySet()) {
        assertReadsBy(c, statement.getKey(), p, false, statement.getValue(), statistics);
      }
    }
  }

  /**
   * Explains {@code statement} with {@code parameters} in a transaction rolled back, after the
   * worker's planner settings where {@code ofWorker}, and checks that each of its reads of the
   * outbox's rows goes through one of {@code indexes}, and that nothing sorts them.
   */
  private static void assertReadsBy(
      Connection c,
      Sql statement,
      Map<String, Object> parameters,
      boolean ofWorker,
      Set<String> indexes,
      Statistics statistics)
      throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      if (ofWorker) {
        s.execute(Dialect.POSTGRESQL.sql(Sql.PLAN_BY_INDEX));
      }
      List<String> plan = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("explain " + literal(statement, parameters))) {
        while (rs.next()) {
          plan.add(rs.getString(1));
        }
      }
      String described =
          statement + " with statistics " + statistics + ":\n" + String.join("\n", plan);
      List<String> scans = new ArrayList<>();
      for (String line : plan) {
        Matcher scan = SCAN_OF_OUTBOX.matcher(line);
        if (scan.find()
            && (line.contains(" on outboxer_message ")
                || line.contains("Bitmap Index Scan on outboxer_message"))) {
          scans.add(scan.group(1).replaceFirst("^(Scan using|Bitmap Index Scan on) ", ""));
        }
      }
      assertThat(scans).as(described).isNotEmpty().allMatch(indexes::contains);
      assertThat(plan)
          .as(described)
          .noneMatch(line -> line.trim().matches("(->  )?(Incremental )?Sort .*"));
    } finally {
      c.rollback();
      c.setAutoCommit(true);
    }
  }

  /** The statement's text with each {@code :name} replaced by its value as a literal. */
  private static String literal(Sql statement, Map<String, Object> parameters) {
    Matcher m = PARAMETER.matcher(Dialect.POSTGRESQL.sql(statement));
    StringBuilder sql = new StringBuilder();
    while (m.find()) {
      Object value = parameters.get(m.group(1));
      if (value == null) {
        throw new IllegalArgumentException(statement + " takes :" + m.group(1));
      }
      String literal =
          value instanceof Number
              ? value.toString()
              : "'" + value.toString().replace("'", "''") + "'";
      m.appendReplacement(sql, Matcher.quoteReplacement(literal));
    }
    m.appendTail(sql);
    return sql.toString();
  }

  /**
   * The backlog, in partitions 0 to 7, arriving after the table got {@code statistics}; in
   * partition 0 a blocked group (a retrying head and 1,000 held rows) and 100 dead messages.
   */
  private static void fill(Connection c, Statistics statistics) throws SQLException {
    try (Statement s = c.createStatement()) {
      switch (statistics) {
        case ANALYZED_EMPTY -> s.execute("analyze outboxer_message");
        case ANALYZED_EMPTY_AFTER_A_DRAIN -> {
          // Drained, then analyzed with its pages kept: no row over many pages.
          insert(s, 50_000);
          s.execute("delete from outboxer_message");
          s.execute("analyze outboxer_message");
        }
        case VACUUMED_AFTER_A_DRAIN_BUT_ONE_ROW -> {
          insert(s, 50_000);
          // The last row stays, so that vacuum cannot give the table's pages back.
          s.execute(
              "delete from outboxer_message where id < (select max(id) from outboxer_message)");
          s.execute("vacuum analyze outboxer_message");
        }
        default -> {}
      }
      insert(s, BACKLOG);
      s.execute(
          "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload,"
              + " state, attempts) select '"
              + OUTBOX
              + "', 0, 'blocked', 'T', '{}',"
              + " case when g = 1 then 3 else 1 end, case when g = 1 then 1 else 0 end"
              + " from generate_series(1, 1001) g");
      s.execute(
          "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload,"
              + " state, attempts) select '"
              + OUTBOX
              + "', 0, 'dead', 'T', '{}', 2, 3"
              + " from generate_series(1, 100) g");
      if (statistics == Statistics.ANALYZED_FULL) {
        s.execute("analyze outboxer_message");
      }
    }
  }

  private static void insert(Statement s, int rows) throws SQLException {
    s.execute(
        "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload)"
            + " select '"
            + OUTBOX
            + "', g % "
            + PARTITIONS
            + ", 'g' || (g % 1000), 'T', '{}'"
            + " from generate_series(1, "
            + rows
            + ") g");
  }

  private static List<Long> column(Connection c, String sql) throws SQLException {
    List<Long> values = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getLong(1));
      }
    }
    return values;
  }
}
