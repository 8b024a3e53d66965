package io.outboxer.it.setup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Gives each suite run a fresh database before the test server connects to it (on PostgreSQL a
 * database created for the run and dropped after it, on SQLite a new file), and a Kafka broker
 * where the run asks for one ({@code outboxer.it.kafka.port}).
 */
public class TestServices implements LauncherSessionListener {

  private static KafkaBroker kafka;

  /** The suite's Kafka broker, or null when the suite runs without one. */
  public static KafkaBroker kafka() {
    return kafka;
  }

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    String kafkaPort = System.getProperty("outboxer.it.kafka.port");
    if (kafkaPort != null) {
      kafka =
          new KafkaBroker(
              Integer.parseInt(kafkaPort),
              Integer.parseInt(kafkaPort) + 1,
              Path.of(System.getProperty("outboxer.it.kafka.dir")));
      try {
        deleteTree(Path.of(System.getProperty("outboxer.it.kafka.dir")));
        kafka.start();
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

  private static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var paths = Files.walk(dir)) {
        for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    if (kafka != null) {
      try {
        kafka.kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if ("postgresql".equals(System.getProperty("outboxer.it.database"))) {
      postgres(
          "drop database if exists "
              + System.getProperty("outboxer.it.pg.database")
              + " with (force)");
    }
  }

  /** Drops the PostgreSQL database {@code name} if it exists and creates it empty. */
  public static void recreatePostgres(String name) {
    postgres("drop database if exists " + name + " with (force)");
    postgres("create database " + name);
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
