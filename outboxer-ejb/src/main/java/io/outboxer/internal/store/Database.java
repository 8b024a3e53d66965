package io.outboxer.internal.store;

import io.outboxer.OutboxException;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.logging.Logger;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.sql.DataSource;

/** Outboxer's data source ({@code jdbc/outboxer}), its dialect and its schema. */
@ApplicationScoped
public class Database {

  private static final Logger LOG = Logger.getLogger(Database.class.getName());
  private static final String JNDI_NAME = "jdbc/outboxer";
  private static final String[] TABLES = {
    "outboxer_message", "outboxer_outbox", "outboxer_lease", "outboxer_node", "outboxer_inbox"
  };

  /**
   * Unshareable: these connections are used outside transactions, and Liberty keeps a shareable one
   * reserved until the calling method ends, which starves SQLite's pool of one.
   */
  @Resource(lookup = "jdbc/outboxer", shareable = false)
  private DataSource dataSource;

  private volatile Dialect dialect;
  private volatile String description;
  private volatile Duration lockWaits;

  public Database() {}

  /** A database over {@code dataSource}, outside the container (for tests). */
  public Database(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Bounds each lock wait of the engine's transactions ({@link EngineLockTimeout}): the engine sets
   * its lease ttl when it starts.
   */
  public void boundLockWaits(Duration bound) {
    lockWaits = bound;
  }

  /** The bound of the engine's lock waits, or null before the engine set one. */
  Duration lockWaits() {
    return lockWaits;
  }

  /** The database's dialect, detected once from the connection's metadata. */
  public Dialect dialect() {
    Dialect d = dialect;
    if (d == null) {
      try (Connection c = dataSource.getConnection()) {
        DatabaseMetaData meta = c.getMetaData();
        d = Dialect.of(meta.getDatabaseProductName());
        description = describe(d, meta.getURL(), meta.getUserName());
      } catch (SQLException e) {
        throw new OutboxException("OUTBOXER-1005 cannot reach the database jdbc/outboxer", e);
      }
      dialect = d;
    }
    return d;
  }

  /**
   * Which database jdbc/outboxer is, for logs and readiness: its kind, where it is and as whom,
   * never a password.
   */
  public String description() {
    dialect();
    return description;
  }

  /** The kind, the URL without its parameters, and the user. */
  static String describe(Dialect dialect, String url, String user) {
    String where = url == null ? "" : url.replaceAll("[?;].*$", "");
    return dialect.name().toLowerCase(Locale.ROOT)
        + " "
        + where
        + (user == null || user.isEmpty() ? "" : " as " + user);
  }

  /**
   * Runs the shipped schema of this database; every statement in it is idempotent. Where servers of
   * a cluster can start together on one database, they take turns ({@link Sql#SCHEMA_LOCK}): an
   * idempotent {@code create … if not exists} still fails beside an identical one in flight.
   */
  public void installSchema() {
    Dialect d = dialect();
    List<String> statements = d.schema();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      if (!d.has(Sql.SCHEMA_LOCK)) {
        apply(c, s, statements);
      } else {
        s.execute(d.sql(Sql.SCHEMA_LOCK));
        SQLException failed = null;
        try {
          apply(c, s, statements);
        } catch (SQLException e) {
          failed = e;
        }
        unlock(c, s, d, failed);
      }
    } catch (SQLException e) {
      throw new OutboxException(
          "OUTBOXER-1006 cannot create Outboxer's schema from " + d.schemaResource(), e);
    }
    LOG.info("OUTBOXER-0001 schema " + d.schemaResource() + " applied");
  }

  private void apply(Connection c, Statement s, List<String> statements) throws SQLException {
    for (String sql : statements) {
      s.execute(sql);
    }
    addColumn(c, s, "outboxer_message", "trace_parent", Sql.ADD_TRACE_PARENT);
    addColumn(c, s, "outboxer_lease", "repairs", Sql.ADD_LEASE_REPAIRS);
    addColumn(c, s, "outboxer_outbox", "terms", Sql.ADD_OUTBOX_TERMS);
  }

  /**
   * Releases the schema's lock, then throws {@code failed}, the script's failure, if there was one.
   * A session lock outlives the connection's return to the pool: when the release fails, the
   * connection is aborted, which ends its session and so the lock, and the release's failure is
   * added to the script's.
   */
  private static void unlock(Connection c, Statement s, Dialect d, SQLException failed)
      throws SQLException {
    try {
      s.execute(d.sql(Sql.SCHEMA_UNLOCK));
    } catch (SQLException e) {
      c.abort(Runnable::run);
      if (failed == null) {
        throw e;
      }
      failed.addSuppressed(e);
    }
    if (failed != null) {
      throw failed;
    }
  }

  /** Adds a column that a table created by an earlier version lacks, by {@code statement}. */
  private void addColumn(Connection c, Statement s, String table, String column, Sql statement)
      throws SQLException {
    if (!hasColumn(c, table, column)) {
      s.execute(dialect().sql(statement));
      LOG.info("OUTBOXER-0005 column " + table + "." + column + " added");
    }
  }

  /** True when {@code table} has {@code column}, by the driver's metadata (names in lower case). */
  private static boolean hasColumn(Connection c, String table, String column) throws SQLException {
    try (ResultSet columns = c.getMetaData().getColumns(null, null, table, column)) {
      return columns.next();
    }
  }

  /**
   * Aborts every connection of {@code jdbc/outboxer}'s pool, in use or not, through Liberty's
   * connection manager MBean ({@code purgePoolContents("abort")}): the pool then opens new ones.
   * For a pool that lost track of its connection (ADR 0018), which no release will ever free.
   *
   * @return false when the server has no such MBean (not Liberty), true once the pool was purged
   */
  public boolean purgePool() {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      for (ObjectName manager :
          server.queryNames(
              new ObjectName("WebSphere:type=com.ibm.ws.jca.cm.mbean.ConnectionManagerMBean,*"),
              null)) {
        if (JNDI_NAME.equals(manager.getKeyProperty("jndiName"))) {
          server.invoke(
              manager,
              "purgePoolContents",
              new Object[] {"abort"},
              new String[] {String.class.getName()});
          return true;
        }
      }
      return false;
    } catch (JMException e) {
      throw new OutboxException("OUTBOXER-1011 cannot purge the pool of " + JNDI_NAME, e);
    }
  }

  /**
   * Checks that the database answers and that Outboxer's tables exist.
   *
   * @return null when all is well, otherwise what is wrong
   */
  public String schemaProblem() {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String table : TABLES) {
        try {
          s.executeQuery("select 1 from " + table + " where 1 = 0").close();
        } catch (SQLException e) {
          return "table " + table + " is missing: " + e.getMessage();
        }
      }
      return null;
    } catch (SQLException e) {
      return "database unreachable: " + e.getMessage();
    }
  }
}
