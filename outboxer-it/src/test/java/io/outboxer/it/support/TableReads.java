package io.outboxer.it.support;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * PostgreSQL's count of the rows read from outboxer_message in the current transaction, taken on
 * Outboxer's own persistence context, so on the very connection the store uses.
 */
@ApplicationScoped
public class TableReads {

  @PersistenceContext(unitName = "outboxer")
  private EntityManager em;

  /** {rows read by sequential scans, rows fetched through indexes} so far in this transaction. */
  public long[] now() {
    Object[] row =
        (Object[])
            em.createNativeQuery(
                    "select coalesce(seq_tup_read, 0), coalesce(idx_tup_fetch, 0)"
                        + " from pg_stat_xact_user_tables where relname = 'outboxer_message'")
                .getSingleResult();
    return new long[] {((Number) row[0]).longValue(), ((Number) row[1]).longValue()};
  }
}
