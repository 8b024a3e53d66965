package io.outboxer.bench;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A single-node KRaft Kafka broker (Maven Central's kafka_2.13, on this JVM's classpath) in a
 * process of its own on loopback, as the integration tests start theirs: a new log folder each run,
 * every internal topic at replication factor 1.
 */
final class KafkaBroker implements AutoCloseable {

  private final Path dir;
  private final int port;
  private Process process;

  KafkaBroker(Path dir) throws IOException {
    this.dir = dir;
    this.port = freePort();
  }

  String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  long pid() {
    return process.pid();
  }

  void start() throws Exception {
    if (Files.exists(dir)) {
      try (var paths = Files.walk(dir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    Files.createDirectories(dir);
    int controllerPort = freePort();
    Path properties = dir.resolve("server.properties");
    Files.writeString(
        properties,
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
            "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
            "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs=" + dir.resolve("data"),
            "num.partitions=1",
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            String.join("\n", addedConfig()),
            ""));
    String clusterId = UUID.randomUUID().toString().replace("-", "").substring(0, 22);
    Process format =
        run(List.of("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", "" + properties));
    if (format.waitFor() != 0) {
      throw new IllegalStateException("Kafka storage format failed: " + log());
    }
    process = run(List.of("kafka.Kafka", properties.toString()));
    await("the Kafka broker's start (log " + dir.resolve("broker.log") + ")")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException("Kafka exited; its log: " + log());
              }
              return log().contains("Kafka Server started");
            });
  }

  /** Creates {@code topic} with {@code partitions} partitions. */
  void createTopic(String topic, int partitions) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(Map.of())))
          .all()
          .get();
    }
  }

  private String log() throws IOException {
    Path log = dir.resolve("broker.log");
    return Files.exists(log) ? Files.readString(log) : "";
  }

  /** The lines {@code bench.broker.config} adds to the broker's configuration (comma-separated). */
  static List<String> addedConfig() {
    String extra = System.getProperty("bench.broker.config", "");
    return extra.isBlank()
        ? List.of()
        : Arrays.stream(extra.split(",")).map(String::strip).filter(l -> !l.isEmpty()).toList();
  }

  private Process run(List<String> mainAndArgs) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path")));
    command.addAll(mainAndArgs);
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("broker.log").toFile())
        .start();
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    if (process != null) {
      process.destroy();
      process.onExit().join();
    }
  }
}
