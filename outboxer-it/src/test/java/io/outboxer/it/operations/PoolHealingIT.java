package io.outboxer.it.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.internal.store.Database;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.OnDatabase;
import io.outboxer.it.support.Sql;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SQLite's pool of one connection, healed (ADR 0018): when the engine holds its turn and still gets
 * no connection within the pool's timeout, it purges the pool, which aborts the connection that no
 * one gives back and lets the pool open a new one. Here a transaction holds the connection, as the
 * one that Liberty's pool lost track of stays reserved.
 */
@OnDatabase(
    value = "sqlite",
    because = "it aborts the connections of the pool: SQLite's pool of one")
@ExtendWith(ArquillianExtension.class)
class PoolHealingIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(PoolHealingIT.class);
  }

  @Inject Database database;
  @Inject UserTransaction tx;

  @Test
  void aPurgeAbortsTheConnectionATransactionHoldsAndThePoolServesANewOne() throws Exception {
    ManagedExecutorService executor =
        InitialContext.doLookup("java:comp/DefaultManagedExecutorService");
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch purged = new CountDownLatch(1);
    Future<Long> holder =
        executor.submit(
            () -> {
              tx.begin();
              try {
                Sql.number("select count(*) from outboxer_lease");
                holding.countDown();
                assertThat(purged.await(60, TimeUnit.SECONDS)).isTrue();
                return Sql.number("select count(*) from outboxer_lease");
              } finally {
                tx.rollback();
              }
            });
    assertThat(holding.await(60, TimeUnit.SECONDS)).as("the connection taken").isTrue();

    assertThat(database.purgePool()).as("the pool's MBean found").isTrue();
    Future<Long> another =
        executor.submit(() -> Sql.number("select count(*) from outboxer_outbox"));
    assertThat(another.get(20, TimeUnit.SECONDS))
        .as("a new connection while the old one is still held, long before the pool's 60 s timeout")
        .isPositive();
    purged.countDown();

    assertThatThrownBy(() -> holder.get(20, TimeUnit.SECONDS))
        .as("the held connection, aborted")
        .hasStackTraceContaining("SQLException");
  }
}
