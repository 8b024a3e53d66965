package io.outboxer.bench;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The bench's Liberty server (created by the build with the demo EAR in {@code dropins}), started
 * and stopped with its own {@code bin/server} script, on the bench's PostgreSQL database (or, for
 * P1s, on a SQLite file).
 */
final class LibertyServer implements AutoCloseable {

  private final Path wlp;
  private final String name;
  private final String base;
  private boolean started;

  LibertyServer(Path wlp, String name, int port) {
    this.wlp = wlp;
    this.name = name;
    this.base = "http://localhost:" + port;
  }

  String url(String path) {
    return base + path;
  }

  /** The server's process id, read from the pid file Liberty writes. */
  long pid() throws Exception {
    return Long.parseLong(
        Files.readString(wlp.resolve("usr/servers/.pid/" + name + ".pid")).trim());
  }

  /** The Liberty version of the installation, as its version file states it. */
  String version() throws Exception {
    Path file = wlp.resolve("lib/versions/openliberty.properties");
    return Files.readAllLines(file).stream()
        .filter(l -> l.startsWith("com.ibm.websphere.productVersion="))
        .map(l -> l.substring(l.indexOf('=') + 1))
        .findFirst()
        .orElse("unknown");
  }

  /**
   * Writes {@code variables} as Liberty variable files (the server reads {@code variables/<name>}
   * as the variable {@code name}) and starts the server clean with {@code env}; returns when {@code
   * /health/ready} answers 200.
   */
  void start(Map<String, String> variables, Map<String, String> env) throws Exception {
    Path dir = wlp.resolve("usr/servers/" + name + "/variables");
    Files.createDirectories(dir);
    for (Map.Entry<String, String> v : variables.entrySet()) {
      Files.writeString(dir.resolve(v.getKey()), v.getValue());
    }
    run("start", env, "--clean");
    started = true;
    HttpClient http = HttpClient.newHttpClient();
    await("server " + name + " ready at " + url("/health/ready"))
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () ->
                http.send(
                            HttpRequest.newBuilder(URI.create(url("/health/ready"))).build(),
                            HttpResponse.BodyHandlers.discarding())
                        .statusCode()
                    == 200);
  }

  @Override
  public void close() throws IOException {
    if (started) {
      try {
        run("stop", Map.of());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      started = false;
    }
  }

  private void run(String action, Map<String, String> env, String... options)
      throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(List.of(wlp.resolve("bin/server").toString(), action, name));
    command.addAll(List.of(options));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes());
    int code = p.waitFor();
    if (code != 0) {
      throw new IllegalStateException(
          "server " + action + " " + name + " exited " + code + ": " + output);
    }
  }
}
