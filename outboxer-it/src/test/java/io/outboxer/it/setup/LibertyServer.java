package io.outboxer.it.setup;

import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Liberty server of the test installation, started and stopped with its own {@code bin/server}
 * script, as an operator would: for the tests that outlive a server.
 */
public final class LibertyServer {

  /**
   * HTTP/1.1: the default, HTTP/2 over an upgraded plain connection, left concurrent requests to
   * Liberty hanging.
   */
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private final Path wlp = Path.of(System.getProperty("outboxer.it.wlp"));
  private final String name;
  private final String base;
  private final Map<String, String> database = new LinkedHashMap<>();

  public LibertyServer(String name, String port) {
    this.name = name;
    this.base = "http://localhost:" + port;
  }

  public String name() {
    return name;
  }

  /** The server's own folder. */
  public Path dir() {
    return wlp.resolve("usr/servers/" + name);
  }

  public String url(String path) {
    return base + path;
  }

  /**
   * Points the server at a new, empty database: a fresh SQLite file, or a PostgreSQL database
   * created for it.
   *
   * @return the JDBC URL under which the test can look at that database
   */
  public String freshDatabase(String kind) throws Exception {
    database.clear();
    database.put("OUTBOXER_DATABASE", kind);
    if (kind.equals("sqlite")) {
      for (String suffix : new String[] {"", "-wal", "-shm"}) {
        Files.deleteIfExists(dir().resolve("outboxer.db" + suffix));
      }
      return "jdbc:sqlite:" + dir().resolve("outboxer.db");
    }
    String db = System.getProperty("outboxer.it.pg.database") + "_" + name.toLowerCase();
    TestServices.recreatePostgres(db);
    database.put("DB_NAME", db);
    return System.getProperty("outboxer.it.pg.url") + db + "?user=postgres";
  }

  /**
   * Names the database chosen by {@link #freshDatabase} the way {@code mvn liberty:run
   * -Dliberty.var.<name>=…} does, in the variables file liberty-maven-plugin writes to {@code
   * configDropins/overrides}, instead of by environment variables.
   */
  public void chooseDatabaseAsLibertyRunDoes() throws Exception {
    StringBuilder variables = new StringBuilder("<server>\n");
    database.forEach(
        (env, value) ->
            variables
                .append("  <variable name=\"")
                .append(
                    env.toLowerCase(Locale.ROOT)
                        .replace("outboxer_", "outboxer.")
                        .replace("db_", "db."))
                .append("\" value=\"")
                .append(value)
                .append("\"/>\n"));
    Files.createDirectories(pluginVariables().getParent());
    Files.writeString(pluginVariables(), variables.append("</server>\n").toString());
    database.clear();
  }

  /** Removes what {@link #chooseDatabaseAsLibertyRunDoes} wrote. */
  public void forgetLibertyRunVariables() throws Exception {
    Files.deleteIfExists(pluginVariables());
  }

  private Path pluginVariables() {
    return dir().resolve("configDropins/overrides/liberty-plugin-variable-config.xml");
  }

  /** Points the server at the database {@code other} uses: two servers, one outbox table. */
  public void shareDatabaseOf(LibertyServer other) {
    database.clear();
    database.putAll(other.database);
  }

  /**
   * Starts the server with these environment variables besides the database's. It starts clean,
   * since Liberty would otherwise reuse the configuration it resolved with the previous values.
   */
  public void start(Map<String, String> env) throws Exception {
    run("start", env, "--clean");
  }

  /**
   * Starts the server again as it was last started, without clearing what Liberty resolved then:
   * seconds faster than {@link #start}, for a server whose variables have not changed.
   */
  public void startAgain() throws Exception {
    run("start", Map.of());
  }

  /** Ends the server's process as a crash would (SIGKILL), and waits until it is gone. */
  public void kill() throws Exception {
    ProcessHandle process = process();
    process.destroyForcibly();
    process.onExit().get();
  }

  /** Freezes the server's process (SIGSTOP): it holds its connections and does nothing. */
  public void pause() throws Exception {
    signal("STOP");
  }

  /** Lets a {@linkplain #pause paused} server's process go on (SIGCONT). */
  public void resume() throws Exception {
    signal("CONT");
  }

  private void signal(String signal) throws Exception {
    Process p =
        new ProcessBuilder("kill", "-" + signal, Long.toString(process().pid()))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("kill -" + signal + " of server " + name + ": " + output);
    }
  }

  private ProcessHandle process() throws Exception {
    long pid =
        Long.parseLong(Files.readString(wlp.resolve("usr/servers/.pid/" + name + ".pid")).trim());
    return ProcessHandle.of(pid)
        .orElseThrow(() -> new IllegalStateException("server " + name + " is not running"));
  }

  /**
   * Adds {@code xml} to the server's configuration as {@code configDropins/overrides/<file>}, read
   * at its next start.
   */
  public void override(String file, String xml) throws Exception {
    Path overrides = dir().resolve("configDropins/overrides");
    Files.createDirectories(overrides);
    Files.writeString(overrides.resolve(file), xml);
  }

  /** Removes what {@link #override} wrote. */
  public void removeOverride(String file) throws Exception {
    Files.deleteIfExists(dir().resolve("configDropins/overrides/" + file));
  }

  /** The lines of the server's {@code logs/messages.log} that contain {@code text}. */
  public List<String> logLines(String text) throws Exception {
    Path log = dir().resolve("logs/messages.log");
    if (!Files.exists(log)) {
      return List.of();
    }
    try (var lines = Files.lines(log)) {
      return lines.filter(l -> l.contains(text)).toList();
    }
  }

  /** Stops the server; fine when it is not running. */
  public void stop() throws Exception {
    run("stop", Map.of());
  }

  /** Waits until {@code /health/ready} answers 200. */
  public void awaitReady() {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> get("/health/ready").statusCode() == 200);
  }

  public HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> post(String path, String json) throws Exception {
    return HTTP.send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(
                json == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(90));
  }

  private void run(String action, Map<String, String> env, String... options) throws Exception {
    List<String> command =
        new ArrayList<>(List.of(wlp.resolve("bin/server").toString(), action, name));
    command.addAll(List.of(options));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(database);
    pb.environment().putAll(env);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes());
    int code = p.waitFor();
    // "stop" answers 1 when the server is not running.
    if (code != 0 && !(action.equals("stop") && code == 1)) {
      throw new IllegalStateException(
          "server " + action + " " + name + " exited " + code + ": " + output);
    }
  }
}
