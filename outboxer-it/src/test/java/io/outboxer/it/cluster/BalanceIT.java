package io.outboxer.it.cluster;

import static io.outboxer.it.support.SuiteDatabase.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.OnDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Partitions are shared fairly among the nodes that deliver an outbox: two engine instances (two
 * applications of the server, each its own node) and outbox it-cluster with 8 partitions. Read from
 * the lease table: which node holds how many partitions.
 */
@OnDatabase(
    value = "postgresql",
    because = "two engines on one database (SQLite is one server's file)")
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@RunAsClient
class BalanceIT {

  @Deployment(name = "a", managed = false, order = 1)
  static EnterpriseArchive first() {
    return Deployments.outboxerWith("balance-a.ear", BalanceIT.class);
  }

  @Deployment(name = "b", managed = false, order = 2)
  static EnterpriseArchive second() {
    return Deployments.outboxerWith("balance-b.ear", BalanceIT.class);
  }

  @ArquillianResource Deployer deployer;

  private static String first;

  @Test
  @Order(1)
  void aNodeAloneTakesEveryPartition() {
    deployer.deploy("a");

    Map<String, Long> holders =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(BalanceIT::holders, h -> h.values().stream().mapToLong(n -> n).sum() == 8);
    assertThat(holders).hasSize(1);
    first = holders.keySet().iterator().next();
  }

  @Test
  @Order(2)
  void aSecondNodeGetsHalfWithinAboutOneHeartbeat() {
    deployer.deploy("b");

    Map<String, Long> holders =
        await()
            .atMost(Duration.ofSeconds(45))
            .until(
                BalanceIT::holders,
                h -> h.size() == 2 && h.values().stream().allMatch(n -> n == 4));
    assertThat(holders).containsEntry(first, 4L);
  }

  @Test
  @Order(3)
  void whenTheSecondLeavesTheFirstTakesEverythingBack() {
    deployer.undeploy("b");

    await()
        .atMost(Duration.ofSeconds(45))
        .until(BalanceIT::holders, h -> h.equals(Map.of(first, 8L)));
    deployer.undeploy("a");
  }

  /** Lease owners of it-cluster with the number of live leases each holds. */
  private static Map<String, Long> holders() throws SQLException {
    Map<String, Long> holders = new TreeMap<>();
    for (Object[] r :
        rows(
            "select owner, count(*) from outboxer_lease where outbox = 'it-cluster'"
                + " and owner is not null"
                + " and expires_at > (extract(epoch from now()) * 1000)::bigint group by owner")) {
      holders.put((String) r[0], ((Number) r[1]).longValue());
    }
    return holders;
  }
}
