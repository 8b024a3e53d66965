package io.outboxer.it.setup;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A real single-node KRaft Kafka broker (the kafka_2.13 artifacts from Maven Central) in a process
 * of its own on loopback, with every internal topic at replication factor 1.
 */
public final class KafkaBroker {

  private final int port;
  private final int controllerPort;
  private final Path dir;
  private final boolean autoCreateTopics;
  private Process process;

  /** A broker that creates a topic when a producer first names it, as Kafka does by default. */
  public KafkaBroker(int port, int controllerPort, Path dir) {
    this(port, controllerPort, dir, true);
  }

  /**
   * @param autoCreateTopics false for a broker on which a topic exists only once it was created, so
   *     that a producer can meet a topic that does not exist
   */
  public KafkaBroker(int port, int controllerPort, Path dir, boolean autoCreateTopics) {
    this.port = port;
    this.controllerPort = controllerPort;
    this.dir = dir;
    this.autoCreateTopics = autoCreateTopics;
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** Formats a new log folder (first start only) and starts the broker; returns once it serves. */
  public void start() throws IOException, InterruptedException {
    Path properties = dir.resolve("server.properties");
    if (!Files.exists(properties)) {
      Files.createDirectories(dir);
      Files.writeString(
          properties,
          String.join(
              "\n",
              "process.roles=broker,controller",
              "node.id=1",
              "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
              "listeners=PLAINTEXT://127.0.0.1:"
                  + port
                  + ",CONTROLLER://127.0.0.1:"
                  + controllerPort,
              "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
              "controller.listener.names=CONTROLLER",
              "inter.broker.listener.name=PLAINTEXT",
              "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
              "log.dirs=" + dir.resolve("data"),
              "num.partitions=1",
              "auto.create.topics.enable=" + autoCreateTopics,
              "offsets.topic.replication.factor=1",
              "transaction.state.log.replication.factor=1",
              "transaction.state.log.min.isr=1",
              "share.coordinator.state.topic.replication.factor=1",
              "share.coordinator.state.topic.min.isr=1",
              "group.initial.rebalance.delay.ms=0",
              // A client quota measured over two seconds rather than eleven: a quota set by a
              // test holds from its first seconds, instead of letting ten seconds' worth through.
              "quota.window.num=2",
              ""));
      run(
          List.of(
              "kafka.tools.StorageTool",
              "format",
              "-t",
              UUID.randomUUID().toString().replace("-", "").substring(0, 22),
              "-c",
              properties.toString()),
          true);
    }
    process = run(List.of("kafka.Kafka", properties.toString()), false);
    Path log = dir.resolve("broker.log");
    Process started = process;
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!started.isAlive()) {
                throw new IllegalStateException("Kafka exited; its log: " + Files.readString(log));
              }
              return Files.readString(log).contains("Kafka Server started");
            });
  }

  /** Stops the broker (as a crash would: the process is killed) and waits until it is gone. */
  public void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly().waitFor();
      process = null;
    }
  }

  private Process run(List<String> mainAndArgs, boolean wait)
      throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        Files.readString(Path.of(System.getProperty("outboxer.it.kafka.classpath"))).trim();
    List<String> command = new java.util.ArrayList<>(List.of(java, "-Xmx512m", "-cp", classpath));
    command.addAll(mainAndArgs);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.redirectOutput(dir.resolve(wait ? "format.log" : "broker.log").toFile());
    Process p = pb.start();
    if (wait && p.waitFor() != 0) {
      throw new IllegalStateException(
          "Kafka storage format failed: " + Files.readString(dir.resolve("format.log")));
    }
    return p;
  }
}
