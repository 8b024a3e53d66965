package io.outboxer.it.support;

import io.outboxer.internal.rules.CommitOrder;
import io.outboxer.internal.store.Dialect;
import io.outboxer.internal.store.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * A PostgreSQL setting as the current transaction sees it, taken on Outboxer's own persistence
 * context, so on the very connection the store uses.
 */
@ApplicationScoped
public class TransactionSetting {

  @PersistenceContext(unitName = "outboxer")
  private EntityManager em;

  /**
   * How many times the statements with parameters on one of Outboxer's tables that this connection
   * keeps prepared ran on a generic plan and on a plan of their own (PostgreSQL's {@code
   * pg_prepared_statements}; a statement without parameters has one plan whatever the setting).
   */
  public record Plans(long generic, long custom) {}

  /** The plans of this connection's prepared statements with parameters on {@code table} so far. */
  public Plans plans(String table) {
    Object[] row =
        (Object[])
            em.createNativeQuery(
                    "select coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0)"
                        + " from pg_prepared_statements where strpos(statement, :table) > 0"
                        + " and statement not like '%pg_prepared_statements%'"
                        + " and cardinality(parameter_types) > 0")
                .setParameter("table", table)
                .getSingleResult();
    return new Plans(((Number) row[0]).longValue(), ((Number) row[1]).longValue());
  }

  /**
   * Sets {@code name} back to the value a transaction starts with, for the rest of the current
   * transaction, as if the next statements began a transaction of their own.
   */
  public void reset(String name) {
    em.createNativeQuery(
            "select set_config(name, reset_val, true) from pg_settings where name = :name")
        .setParameter("name", name)
        .getSingleResult();
  }

  /** The value of setting {@code name} now. */
  public String of(String name) {
    return (String)
        em.createNativeQuery("select current_setting(:name)")
            .setParameter("name", name)
            .getSingleResult();
  }

  /** Runs the current transaction at {@code level}: its first statement. */
  public void isolation(String level) {
    em.createNativeQuery("set transaction isolation level " + level).executeUpdate();
  }

  /** Runs {@code sql} (a savepoint's statement, say) on the store's connection. */
  public void execute(String sql) {
    em.createNativeQuery(sql).executeUpdate();
  }

  /**
   * The advisory locks of two integers this connection's transaction holds: a publishing
   * transaction's lock on its ids' lower bound and those of its partitions (ADR 0010).
   */
  public long announcedLocks() {
    return ((Number)
            em.createNativeQuery(
                    "select count(*) from pg_locks where locktype = 'advisory' and objsubid = 2"
                        + " and pid = pg_backend_pid() and granted")
                .getSingleResult())
        .longValue();
  }

  /**
   * The in-flight bound a worker of {@code outbox}'s {@code partition} would read now ({@code
   * IN_FLIGHT}), or null when no transaction announced itself there.
   */
  public Long inFlightBound(String outbox, int partition) {
    Object bound =
        em.createNativeQuery(Dialect.POSTGRESQL.sql(Sql.IN_FLIGHT))
            .setParameter("space", CommitOrder.space(outbox))
            .setParameter("partition", partition)
            .getSingleResult();
    return bound == null ? null : ((Number) bound).longValue();
  }
}
