package io.outboxer.internal.store;

import io.outboxer.OutboxException;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A database Outboxer supports, with its shipped SQL beside the entity in outboxer-jpa: {@code
 * sql/<database>/schema.sql} and every statement the engine runs, whole, in {@code
 * sql/<database>/statements.sql}.
 */
public enum Dialect {
  POSTGRESQL("postgresql", false),

  /** One writer at a time: writes are serialized by the database itself, no lock is needed. */
  SQLITE("sqlite", true);

  private final String folder;
  private final boolean oneWriter;
  private volatile Map<Sql, String> statements;

  Dialect(String folder, boolean oneWriter) {
    this.folder = folder;
    this.oneWriter = oneWriter;
  }

  /**
   * True when the database takes one writing transaction at a time: the engine's transactions then
   * take turns ({@link EngineTurns}).
   */
  public boolean oneWriter() {
    return oneWriter;
  }

  /** The dialect of a database, by its JDBC product name. */
  public static Dialect of(String databaseProductName) {
    String name = databaseProductName.toLowerCase(Locale.ROOT);
    if (name.contains("postgres")) {
      return POSTGRESQL;
    }
    if (name.contains("sqlite")) {
      return SQLITE;
    }
    throw new OutboxException(
        "OUTBOXER-1004 unsupported database '"
            + databaseProductName
            + "' behind jdbc/outboxer: Outboxer supports PostgreSQL and SQLite");
  }

  /** The classpath resource holding this database's schema. */
  public String schemaResource() {
    return "sql/" + folder + "/schema.sql";
  }

  /** The classpath resource holding this database's statements. */
  public String statementsResource() {
    return "sql/" + folder + "/statements.sql";
  }

  /** The statements of the schema, in order; each one is idempotent. */
  public List<String> schema() {
    return SqlScripts.statements(SqlScripts.read(schemaResource()));
  }

  /** True when this database has {@code statement} (optional ones may be left out). */
  public boolean has(Sql statement) {
    return statements().containsKey(statement);
  }

  /** The text of {@code statement} on this database. */
  public String sql(Sql statement) {
    String sql = statements().get(statement);
    if (sql == null) {
      throw new IllegalStateException(statement + " has no text on " + this);
    }
    return sql;
  }

  private Map<Sql, String> statements() {
    Map<Sql, String> s = statements;
    if (s == null) {
      s = load();
      statements = s;
    }
    return s;
  }

  private Map<Sql, String> load() {
    Map<String, String> named = SqlScripts.named(SqlScripts.read(statementsResource()));
    Map<Sql, String> loaded = new EnumMap<>(Sql.class);
    for (Sql statement : Sql.values()) {
      String sql = named.remove(statement.name());
      if (sql != null) {
        loaded.put(statement, sql);
      } else if (!statement.optional()) {
        throw new OutboxException(
            "OUTBOXER-1006 " + statementsResource() + " lacks the statement " + statement);
      }
    }
    if (!named.isEmpty()) {
      throw new OutboxException(
          "OUTBOXER-1006 " + statementsResource() + " names unknown statements " + named.keySet());
    }
    return loaded;
  }
}
