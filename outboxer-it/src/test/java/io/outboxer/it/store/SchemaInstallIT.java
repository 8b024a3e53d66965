package io.outboxer.it.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.internal.store.Database;
import io.outboxer.it.setup.TestServices;
import io.outboxer.it.support.OnDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Servers of a cluster that start together on an empty PostgreSQL database each apply the schema at
 * once: PostgreSQL's {@code create … if not exists} fails when an identical statement runs beside
 * it, so the script must be serialized across servers, not only idempotent. Each server is a {@link
 * Database} of its own, released together after detecting the dialect.
 */
@OnDatabase(value = "postgresql", because = "servers starting together on one database")
class SchemaInstallIT {

  private static final int SERVERS = 4;
  private static final int ROUNDS = 8;

  @Test
  void serversStartingTogetherOnAnEmptyDatabaseEachApplyTheWholeSchema() throws Exception {
    String name = System.getProperty("outboxer.it.pg.database") + "_schema";
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(System.getProperty("outboxer.it.pg.url") + name);
    dataSource.setUser("postgres");
    ExecutorService threads = Executors.newFixedThreadPool(SERVERS);
    try {
      for (int round = 1; round <= ROUNDS; round++) {
        oneRound(dataSource, name, round, threads);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static void oneRound(
      PGSimpleDataSource dataSource, String name, int round, ExecutorService threads)
      throws Exception {
    TestServices.recreatePostgres(name);
    CyclicBarrier together = new CyclicBarrier(SERVERS);
    List<CompletableFuture<String>> servers = new ArrayList<>();
    for (int i = 0; i < SERVERS; i++) {
      Database database = new Database(dataSource);
      database.dialect();
      servers.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  together.await();
                  database.installSchema();
                  return "applied";
                } catch (Exception e) {
                  return e + (e.getCause() == null ? "" : " caused by " + e.getCause());
                }
              },
              threads));
    }
    List<String> outcomes = servers.stream().map(CompletableFuture::join).toList();
    assertThat(outcomes).as("round %d", round).containsOnly("applied");
    assertThat(new Database(dataSource).schemaProblem()).as("round %d", round).isNull();
  }
}
