package io.outboxer.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.it.setup.DemoClient;
import io.outboxer.it.setup.LeaseHolders;
import io.outboxer.it.setup.LibertyServer;
import jakarta.json.JsonArray;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two real servers with the demo application on one PostgreSQL database share the outbox's four
 * partitions; one is killed (SIGKILL) and the other takes its partitions within about one lease
 * ttl, then delivers everything published, each group in order.
 */
class FailoverIT {

  /** A short lease, so that the test waits seconds: heartbeats every 2 s, leases last 6 s. */
  private static final Map<String, String> SHORT_LEASE = Map.of("OUTBOXER_LEASE_TTL", "6s");

  private final LibertyServer survivor =
      new LibertyServer(
          System.getProperty("outboxer.it.server"), System.getProperty("outboxer.it.port"));
  private final LibertyServer victim =
      new LibertyServer(
          System.getProperty("outboxer.it.peer.server"),
          System.getProperty("outboxer.it.peer.port"));
  private String jdbcUrl;

  @AfterEach
  void stopServers() throws Exception {
    victim.stop();
    survivor.stop();
  }

  @Test
  void aKilledServersPartitionsMoveToTheOtherWithinAboutOneLeaseTtl() throws Exception {
    jdbcUrl = survivor.freshDatabase("postgresql");
    victim.shareDatabaseOf(survivor);
    survivor.start(SHORT_LEASE);
    victim.start(SHORT_LEASE);
    survivor.awaitReady();
    victim.awaitReady();

    Map<String, Long> shared =
        await()
            .atMost(Duration.ofSeconds(60))
            .until(this::holders, h -> h.size() == 2 && h.values().stream().allMatch(n -> n == 2));
    String survivorNode =
        shared.keySet().stream()
            .filter(owner -> owner.startsWith(System.getProperty("outboxer.it.server") + "@"))
            .findFirst()
            .orElseThrow();

    victim.kill();

    // Its leases expire and its heartbeat goes stale one ttl after the kill; the survivor's next
    // heartbeat (every ttl/3) raises its share, its next poll takes the partitions.
    await()
        .atMost(Duration.ofSeconds(18))
        .until(this::holders, h -> h.equals(Map.of(survivorNode, 4L)));

    DemoClient demo = new DemoClient(survivor);
    Map<String, List<Long>> published = new LinkedHashMap<>();
    for (int i = 0; i < 40; i++) {
      String order = "f" + (i % 8);
      published.computeIfAbsent("order:" + order, g -> new ArrayList<>()).add(demo.pay(order));
    }
    JsonArray received =
        await().atMost(Duration.ofSeconds(60)).until(demo::received, array -> array.size() >= 40);
    assertThat(received).hasSize(40);
    assertThat(DemoClient.byGroup(received)).isEqualTo(published);
  }

  private Map<String, Long> holders() throws SQLException {
    return LeaseHolders.of(jdbcUrl);
  }
}
