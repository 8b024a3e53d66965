package io.outboxer.bench;

import io.outboxer.internal.rules.CommitOrder;
import io.outboxer.internal.store.Dialect;
import io.outboxer.internal.store.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * W1, W2 and W3, the cost of wait-for-writers (ADR 0010): the drain of the outbox that waits for
 * writers ({@code default}) against one that does not ({@code nowait}, same relay, topic and
 * partitions), the publishing transaction with and without the statement that announces it, and the
 * other partitions' drain while a publishing transaction stays open in one.
 */
final class WriterScenarios {

  /** The server's outbox with wait-for-writers=false (bench.xml). */
  static final String NO_WAIT = "nowait";

  /** The outbox W2 publishes into: one the server does not know, so no worker drains it. */
  private static final String PUBLISH_OUTBOX = "publish-bench";

  private static final String INSERT =
      "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload)"
          + " values (?, ?, ?, ?, ?)";

  private final Rig rig;
  private final Report report;
  private final Drains drains;
  private final int reps;
  private final int backlog;
  private final int heldBacklog;

  WriterScenarios(Rig rig, Report report, Drains drains, int reps, int backlog, int heldBacklog) {
    this.rig = rig;
    this.report = report;
    this.drains = drains;
    this.reps = reps;
    this.backlog = backlog;
    this.heldBacklog = heldBacklog;
  }

  /**
   * W1: drains of the same backlog by the two outboxes, each woken by an operator's revive of the
   * backlog, written dead: their partitions all start at once, not at their workers' polls, which
   * come up to a poll interval apart.
   */
  void drains() throws Exception {
    drains.revived(NO_WAIT, backlog / 10);
    drains.revived(Db.OUTBOX, backlog / 10);
    List<Drains.Run> waiting = new ArrayList<>();
    List<Drains.Run> notWaiting = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      waiting.add(drains.revived(Db.OUTBOX, backlog));
      notWaiting.add(drains.revived(NO_WAIT, backlog));
    }
    report.add(
        new Result(
            "W1",
            "drain " + backlog + " msgs, wait-for-writers on vs off",
            "product, wait-for-writers=false",
            true,
            Scenarios.figure("msg/s", waiting, Drains.Run::perSecond),
            Scenarios.figure("msg/s", notWaiting, Drains.Run::perSecond),
            Scenarios.NO_TARGET,
            "backlog written dead; timed from the answer of an operator's revive, whose commit wakes"
                + " every partition, to the deletion of each partition's newest row",
            Map.of(
                "product", Drains.averageCores(waiting),
                "reference", Drains.averageCores(notWaiting))));
  }

  /**
   * W2: 8 JDBC clients publishing one grouped message per transaction for 5 s, with the insert that
   * publishing runs under wait-for-writers ({@code INSERT_ANNOUNCED}) and with a plain insert.
   */
  void publishing() throws Exception {
    Duration run = Duration.ofSeconds(5);
    publish(true, Duration.ofSeconds(2));
    publish(false, Duration.ofSeconds(2));
    List<Load> with = new ArrayList<>();
    List<Load> without = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      with.add(publish(true, run));
      without.add(publish(false, run));
    }
    String ref = "a plain insert";
    String note =
        "JDBC, 8 clients, one transaction per message: INSERT_ANNOUNCED vs a plain insert";
    report.add(
        new Result(
            "W2",
            "publish, wait-for-writers, throughput",
            ref,
            true,
            Scenarios.figure("tx/s", with, Load::perSecond),
            Scenarios.figure("tx/s", without, Load::perSecond),
            Scenarios.NO_TARGET,
            note,
            Map.of()));
    report.add(
        new Result(
            "W2",
            "publish, wait-for-writers, p50 latency",
            ref,
            false,
            Scenarios.figure("ms", with, Load::p50Ms),
            Scenarios.figure("ms", without, Load::p50Ms),
            Scenarios.NO_TARGET,
            note,
            Map.of()));
    rig.db().clear();
  }

  /**
   * W3: the drain of a backlog in partitions 1-7 of {@code default} while a transaction that
   * published into partition 0 stays open, against the same drain without it. The open transaction
   * holds back partition 0 and, on PostgreSQL, the cleanup horizon: the rows deleted meanwhile
   * leave entries in the scan index that every batch read walks, a cost that grows with the drain,
   * so the backlog is sized for a drain of at least 30 s.
   */
  void heldPartition() throws Exception {
    drains.polledBeside(heldBacklog / 10, this::openPublish);
    drains.polledBeside(heldBacklog / 10, () -> null);
    List<Drains.Run> held = new ArrayList<>();
    List<Drains.Run> free = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      held.add(drains.polledBeside(heldBacklog, this::openPublish));
      free.add(drains.polledBeside(heldBacklog, () -> null));
    }
    report.add(
        new Result(
            "W3",
            "drain "
                + heldBacklog
                + " msgs of partitions 1-"
                + (rig.partitions() - 1)
                + " while a publish to partition 0 stays open",
            "same without the open transaction",
            true,
            Scenarios.figure("msg/s", held, Drains.Run::perSecond),
            Scenarios.figure("msg/s", free, Drains.Run::perSecond),
            0.9,
            "JDBC transaction (INSERT_ANNOUNCED into partition 0) opened before the backlog is"
                + " written, rolled back after its drain; timed from the first batch's deletion"
                + " (the workers' poll) to the end of the last partition",
            Map.of(
                "product", Drains.averageCores(held),
                "reference", Drains.averageCores(free))));
  }

  /**
   * A transaction that announced and published one message into partition 0 of {@code default} and
   * holds an xid, open until closed, which rolls it back.
   */
  private AutoCloseable openPublish() throws SQLException {
    Connection c = rig.db().connect();
    c.setAutoCommit(false);
    try (PreparedStatement insert = c.prepareStatement(Announced.SQL)) {
      Announced.bind(
          insert,
          Map.of(
              "space",
              CommitOrder.space(Db.OUTBOX),
              "outbox",
              Db.OUTBOX,
              "partition",
              0,
              "group",
              "order:" + Db.orderPerPartition("open-", rig.partitions()).get(0),
              "type",
              Db.TYPE,
              "payload",
              "{\"orderId\":\"open\"}"));
      insert.executeQuery().close();
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return () -> {
      try (c) {
        c.rollback();
      }
    };
  }

  /** {@code INSERT_ANNOUNCED} with positional parameters, bound by their names. */
  private static final class Announced {

    private static final List<String> NAMES = new ArrayList<>();
    static final String SQL;

    static {
      Matcher m =
          Pattern.compile("(?<![:\\w]):(\\w+)")
              .matcher(Dialect.POSTGRESQL.sql(Sql.INSERT_ANNOUNCED));
      StringBuilder sql = new StringBuilder();
      while (m.find()) {
        NAMES.add(m.group(1));
        m.appendReplacement(sql, "?");
      }
      m.appendTail(sql);
      SQL = sql.toString();
    }

    private Announced() {}

    /** Binds each parameter by its name; a name without a value is bound as null. */
    static void bind(PreparedStatement s, Map<String, Object> values) throws SQLException {
      for (int i = 0; i < NAMES.size(); i++) {
        Object value = values.get(NAMES.get(i));
        if (value == null) {
          s.setNull(i + 1, Types.VARCHAR);
        } else {
          s.setObject(i + 1, value);
        }
      }
    }
  }

  record Load(double perSecond, double p50Ms) {}

  private Load publish(boolean announce, Duration duration) throws Exception {
    int clients = 8;
    int partitions = rig.partitions();
    int space = CommitOrder.space(PUBLISH_OUTBOX);
    ConcurrentLinkedQueue<Histogram> histograms = new ConcurrentLinkedQueue<>();
    AtomicInteger done = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    long end = System.nanoTime() + duration.toNanos();
    List<SQLException> failures = new ArrayList<>();
    for (int t = 0; t < clients; t++) {
      int client = t;
      threads.add(
          new Thread(
              () -> {
                Histogram latency = new Histogram(3);
                try (Connection c = rig.db().connect();
                    PreparedStatement announced = c.prepareStatement(Announced.SQL);
                    PreparedStatement insert = c.prepareStatement(INSERT)) {
                  c.setAutoCommit(false);
                  for (int n = 0; System.nanoTime() < end; n++) {
                    int partition = (client + n) % partitions;
                    String group = "order:w" + client + "-" + n;
                    long start = System.nanoTime();
                    if (announce) {
                      Announced.bind(
                          announced,
                          Map.of(
                              "space", space,
                              "outbox", PUBLISH_OUTBOX,
                              "partition", partition,
                              "group", group,
                              "type", Db.TYPE,
                              "payload", "{\"orderId\":\"w\"}"));
                      announced.executeQuery().close();
                    } else {
                      insert.setString(1, PUBLISH_OUTBOX);
                      insert.setInt(2, partition);
                      insert.setString(3, group);
                      insert.setString(4, Db.TYPE);
                      insert.setString(5, "{\"orderId\":\"w\"}");
                      insert.executeUpdate();
                    }
                    c.commit();
                    latency.recordValue((System.nanoTime() - start) / 1_000);
                    done.incrementAndGet();
                  }
                } catch (SQLException e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
                histograms.add(latency);
              }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
    Histogram all = new Histogram(3);
    histograms.forEach(all::add);
    return new Load(
        done.get() / (duration.toNanos() / 1e9), all.getValueAtPercentile(50) / 1_000.0);
  }
}
