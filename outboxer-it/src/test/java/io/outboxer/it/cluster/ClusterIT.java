package io.outboxer.it.cluster;

import static io.outboxer.it.support.SuiteDatabase.count;
import static io.outboxer.it.support.SuiteDatabase.execute;
import static io.outboxer.it.support.SuiteDatabase.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.OnDatabase;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.OperateOnDeployment;
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
 * Two engine instances (two applications of the server, each with its own node id and its own
 * recording relay) on one PostgreSQL database, outbox it-cluster with 8 partitions. The first takes
 * the partitions; while it delivers, it is undeployed and hands them to the second. Every delivery
 * is recorded with the application, the time, and the partition's lease owner and epoch in the
 * database at that moment.
 */
@OnDatabase(
    value = "postgresql",
    because = "two engines on one database (SQLite is one server's file)")
@ExtendWith(ArquillianExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIT {

  private static final int GROUPS = 100;
  private static final int MESSAGES = 2_000;

  @Deployment(name = "a", managed = false, order = 1)
  static EnterpriseArchive first() {
    return Deployments.outboxerWith("cluster-a.ear", ClusterIT.class);
  }

  @Deployment(name = "b", managed = false, order = 2)
  static EnterpriseArchive second() {
    return Deployments.outboxerWith("cluster-b.ear", ClusterIT.class);
  }

  @ArquillianResource Deployer deployer;

  @Inject Outbox outbox;
  @Inject UserTransaction tx;

  @Test
  @Order(1)
  @RunAsClient
  void startBothEngines() throws Exception {
    execute("drop table if exists it_delivery");
    execute(
        "create table it_delivery (app varchar(100), message_id bigint, group_key varchar(500),"
            + " partition_no int, lease_owner varchar(200), lease_epoch bigint, started_at bigint,"
            + " finished_at bigint)");
    deployer.deploy("a");
    deployer.deploy("b");
  }

  @Test
  @Order(2)
  @OperateOnDeployment("a")
  void publish() throws Exception {
    for (int t = 0; t < MESSAGES / 100; t++) {
      tx.begin();
      for (int i = 0; i < 100; i++) {
        int seq = t * 100 + i;
        outbox.publish(new ItEvents.Cluster("cluster-g" + (seq % GROUPS), seq));
      }
      tx.commit();
    }
  }

  @Test
  @Order(3)
  @RunAsClient
  void handOverWhileDelivering() throws Exception {
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> count("select count(distinct message_id) from it_delivery") >= MESSAGES / 4);
    deployer.undeploy("a");
    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> count("select count(distinct message_id) from it_delivery") == MESSAGES);
    deployer.undeploy("b");
  }

  @Test
  @Order(4)
  @RunAsClient
  void noPartitionWasEverDeliveredByTwoAtOnce() throws Exception {
    List<Object[]> batches =
        rows(
            "select partition_no, app, lease_owner, lease_epoch, started_at, finished_at"
                + " from it_delivery group by partition_no, app, lease_owner, lease_epoch,"
                + " started_at, finished_at order by partition_no, started_at");
    Map<String, String> appOfOwner = new HashMap<>();
    Map<Integer, Object[]> lastOfPartition = new HashMap<>();
    Map<String, Integer> partitionsOfApp = new HashMap<>();
    for (Object[] b : batches) {
      int partition = ((Number) b[0]).intValue();
      String app = (String) b[1];
      String owner = (String) b[2];
      assertThat(appOfOwner.putIfAbsent(owner, app))
          .as("the lease owner %s while %s delivered", owner, app)
          .isIn(null, app);
      Object[] previous = lastOfPartition.put(partition, b);
      if (previous != null && !previous[1].equals(app)) {
        assertThat(((Number) b[4]).longValue())
            .as("partition %d: %s started before %s had finished", partition, app, previous[1])
            .isGreaterThan(((Number) previous[5]).longValue());
        assertThat(((Number) b[3]).longValue())
            .as("partition %d changed hands with a new epoch", partition)
            .isGreaterThan(((Number) previous[3]).longValue());
      }
      partitionsOfApp.merge(app, 1, Integer::sum);
    }
    assertThat(partitionsOfApp).containsOnlyKeys("cluster-a", "cluster-b");
    assertThat(lastOfPartition).hasSize(8);

    // Every message arrived; per group, the first deliveries are in publication order.
    Map<String, List<Long>> firstArrivals = new LinkedHashMap<>();
    for (Object[] r :
        rows(
            "select group_key, message_id from it_delivery d where started_at = (select min(started_at)"
                + " from it_delivery e where e.message_id = d.message_id) order by started_at, message_id")) {
      firstArrivals
          .computeIfAbsent((String) r[0], g -> new ArrayList<>())
          .add(((Number) r[1]).longValue());
    }
    assertThat(firstArrivals).hasSize(GROUPS);
    assertThat(firstArrivals.values().stream().mapToInt(List::size).sum()).isEqualTo(MESSAGES);
    firstArrivals.forEach((group, ids) -> assertThat(ids).as(group).isSorted());
  }
}
