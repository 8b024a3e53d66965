package io.outboxer.it.setup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Set;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Gives each suite run a fresh database before the test server connects to it (on PostgreSQL a
 * database created for the run and dropped after it, as are the databases of the servers the tests
 * start themselves; on SQLite a new file) and, where the run asks for them ({@code
 * outboxer.it.brokers}), a Kafka broker and an SQS server on free loopback ports.
 *
 * <p>The test server learns the brokers' addresses from files in its {@code variables/} folder
 * (Liberty reads each file as the variable its name names): {@value #KAFKA_BOOTSTRAP} and {@value
 * #SQS_ENDPOINT}.
 */
public class TestServices implements LauncherSessionListener {

  /** The Liberty variable holding the Kafka broker's {@code host:port}. */
  public static final String KAFKA_BOOTSTRAP = "it.kafka.bootstrap";

  /** The Liberty variable holding the SQS server's URL. */
  public static final String SQS_ENDPOINT = "it.sqs.endpoint";

  /** The PostgreSQL databases this test JVM created, to be dropped at its end. */
  private static final Set<String> CREATED = new LinkedHashSet<>();

  private static KafkaBroker kafka;
  private static SQSRestServer sqs;

  /** The suite's Kafka broker, or null when the suite runs without one. */
  public static KafkaBroker kafka() {
    return kafka;
  }

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    if (Boolean.getBoolean("outboxer.it.brokers")) {
      try {
        startBrokers();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    String database = System.getProperty("outboxer.it.database");
    if ("postgresql".equals(database)) {
      recreatePostgres(System.getProperty("outboxer.it.pg.database"));
    } else if ("sqlite".equals(database)) {
      Path file = Path.of(System.getProperty("outboxer.it.sqlite.file"));
      try {
        Files.createDirectories(file.getParent());
        for (String suffix : new String[] {"", "-wal", "-shm"}) {
          Files.deleteIfExists(Path.of(file + suffix));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static void startBrokers() throws IOException, InterruptedException {
    Path kafkaDir = Path.of(System.getProperty("outboxer.it.kafka.dir"));
    deleteTree(kafkaDir);
    kafka = new KafkaBroker(freePort(), freePort(), kafkaDir);
    kafka.start();
    sqs = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
    int sqsPort = sqs.waitUntilStarted().localAddress().getPort();

    Path variables =
        Path.of(
            System.getProperty("outboxer.it.wlp"),
            "usr/servers",
            System.getProperty("outboxer.it.arquillian.server"),
            "variables");
    Files.createDirectories(variables);
    Files.writeString(variables.resolve(KAFKA_BOOTSTRAP), kafka.bootstrapServers());
    Files.writeString(variables.resolve(SQS_ENDPOINT), "http://127.0.0.1:" + sqsPort);
  }

  /** A TCP port free on loopback at the time of the call. */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** Deletes {@code dir} and everything in it; fine when it does not exist. */
  public static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    if (sqs != null) {
      sqs.stopAndWait();
    }
    if (kafka != null) {
      try {
        kafka.kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // The databases are this run's (their names carry its port): none is of use after it.
    synchronized (CREATED) {
      for (String name : CREATED) {
        postgres("drop database if exists " + name + " with (force)");
      }
      CREATED.clear();
    }
  }

  /**
   * Drops the PostgreSQL database {@code name} if it exists and creates it empty; it is dropped
   * again when the test JVM's launcher session ends.
   */
  public static void recreatePostgres(String name) {
    postgres("drop database if exists " + name + " with (force)");
    postgres("create database " + name);
    synchronized (CREATED) {
      CREATED.add(name);
    }
  }

  private static void postgres(String sql) {
    String url = System.getProperty("outboxer.it.pg.url") + "test";
    try (Connection c = DriverManager.getConnection(url, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL at " + url + " refused: " + sql, e);
    }
  }
}
