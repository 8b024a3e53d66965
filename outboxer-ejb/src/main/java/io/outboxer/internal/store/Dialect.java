package io.outboxer.internal.store;

import io.outboxer.OutboxException;
import java.util.Locale;

/**
 * What differs between the databases Outboxer supports. Each constant's schema lives beside it in
 * outboxer-jpa as {@code sql/<database>/schema.sql}; statements that both databases accept stay in
 * the store.
 */
public enum Dialect {
  POSTGRESQL("postgresql", "(extract(epoch from now()) * 1000)::bigint") {
    @Override
    public String groupLock() {
      return "select 1 from pg_advisory_xact_lock(?1)";
    }
  },

  /** One writer at a time: writes are serialized by the database itself, no lock is needed. */
  SQLITE("sqlite", "cast(unixepoch('subsec') * 1000 as integer)") {
    @Override
    public String groupLock() {
      return null;
    }
  };

  private final String folder;
  private final String nowMillis;

  Dialect(String folder, String nowMillis) {
    this.folder = folder;
    this.nowMillis = nowMillis;
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

  /**
   * The database clock as milliseconds since the epoch, as an SQL expression. It has one value per
   * statement (SQLite) or per transaction (PostgreSQL), so one statement can write several times
   * that agree exactly.
   */
  public String nowMillis() {
    return nowMillis;
  }

  /** The classpath resource holding this database's schema. */
  public String schemaResource() {
    return "sql/" + folder + "/schema.sql";
  }

  /**
   * A statement taking a transaction-scoped lock on the 64-bit key {@code ?1}, or {@code null}
   * where the database serializes writers anyway.
   */
  public abstract String groupLock();
}
