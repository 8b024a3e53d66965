package io.outboxer.it.support;

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

  /** The value of setting {@code name} now. */
  public String of(String name) {
    return (String)
        em.createNativeQuery("select current_setting(:name)")
            .setParameter("name", name)
            .getSingleResult();
  }
}
