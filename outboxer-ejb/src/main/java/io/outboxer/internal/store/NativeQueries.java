package io.outboxer.internal.store;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.spi.JsonProvider;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import jakarta.persistence.Tuple;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.StringJoiner;

/**
 * Runs the dialect's named statements in the caller's transaction, through the persistence context,
 * so that they share the connection of the entity writes (SQLite's pool holds one). Parameters come
 * as name-value pairs: {@code update(Sql.LEAVE, "outbox", o, "node", n)}.
 */
@ApplicationScoped
public class NativeQueries {

  /**
   * Looked up once: {@code Json.createArrayBuilder()} looks the provider up again at every call,
   * which cost more than building a batch's array of a thousand group keys.
   */
  private static final JsonProvider JSON = JsonProvider.provider();

  @PersistenceContext(unitName = "outboxer")
  private EntityManager em;

  @Inject private Database database;

  /** The persistence context, for entity writes. */
  EntityManager entityManager() {
    return em;
  }

  /** True when the database has the optional {@code statement}. */
  boolean has(Sql statement) {
    return database.dialect().has(statement);
  }

  /** Runs an insert, update or delete; returns how many rows it changed. */
  int update(Sql statement, Object... parameters) {
    return query(statement, parameters).executeUpdate();
  }

  /**
   * Runs an insert, update or delete on {@code lease}'s partition, which it takes as {@code
   * :outbox} and {@code :partition}; returns how many rows it changed.
   */
  int updatePartition(Sql statement, Lease lease, Object... parameters) {
    return onPartition(query(statement, parameters), lease).executeUpdate();
  }

  /** Runs a query of one column on {@code lease}'s partition, likewise. */
  @SuppressWarnings("unchecked")
  List<Object> columnOfPartition(Sql statement, Lease lease, Object... parameters) {
    return onPartition(query(statement, parameters), lease).getResultList();
  }

  /** Runs a query of several columns on {@code lease}'s partition, likewise. */
  List<ResultRow> rowsOfPartition(Sql statement, Lease lease, Object... parameters) {
    return rows(
        onPartition(
            bind(em.createNativeQuery(database.dialect().sql(statement), Tuple.class), parameters),
            lease));
  }

  private static Query onPartition(Query query, Lease lease) {
    return query
        .setParameter("outbox", lease.outbox())
        .setParameter("partition", lease.partition());
  }

  /**
   * Runs a statement that changes rows only while {@code lease} is valid: it takes the lease as
   * {@code :outbox}, {@code :partition}, {@code :owner} and {@code :epoch}.
   */
  int updateFenced(Sql statement, Lease lease, Object... parameters) {
    return fenced(statement, lease, parameters).executeUpdate();
  }

  /**
   * As {@link #updateFenced}, for a statement that returns one column of the rows it changed: none
   * when the lease is not valid.
   */
  @SuppressWarnings("unchecked")
  List<Object> columnFenced(Sql statement, Lease lease, Object... parameters) {
    return fenced(statement, lease, parameters).getResultList();
  }

  private Query fenced(Sql statement, Lease lease, Object... parameters) {
    return onPartition(query(statement, parameters), lease)
        .setParameter("owner", lease.owner())
        .setParameter("epoch", lease.epoch());
  }

  /** Runs a query of several columns, each read by its name. */
  List<ResultRow> rows(Sql statement, Object... parameters) {
    return rows(
        bind(em.createNativeQuery(database.dialect().sql(statement), Tuple.class), parameters));
  }

  private static List<ResultRow> rows(Query query) {
    List<?> tuples = query.getResultList();
    List<ResultRow> rows = new ArrayList<>(tuples.size());
    for (Object tuple : tuples) {
      rows.add(new ResultRow((Tuple) tuple));
    }
    return rows;
  }

  /** Runs a query of one column. */
  @SuppressWarnings("unchecked")
  List<Object> column(Sql statement, Object... parameters) {
    return query(statement, parameters).getResultList();
  }

  /** Runs a query of one number that always has a row (a count, say). */
  Number number(Sql statement, Object... parameters) {
    return (Number) query(statement, parameters).getSingleResult();
  }

  private Query query(Sql statement, Object... parameters) {
    return bind(em.createNativeQuery(database.dialect().sql(statement)), parameters);
  }

  private static Query bind(Query query, Object... parameters) {
    for (int i = 0; i < parameters.length; i += 2) {
      query.setParameter((String) parameters[i], parameters[i + 1]);
    }
    return query;
  }

  /** {@code ids} as one JSON array of numbers: how the statements take lists of ids. */
  static String idArray(Collection<Long> ids) {
    StringJoiner array = new StringJoiner(",", "[", "]");
    for (Long id : ids) {
      array.add(id.toString());
    }
    return array.toString();
  }

  /** {@code keys} as one JSON array of strings: how the statements take lists of group keys. */
  static String keyArray(Collection<String> keys) {
    JsonArrayBuilder array = JSON.createArrayBuilder();
    keys.forEach(array::add);
    return array.build().toString();
  }
}
