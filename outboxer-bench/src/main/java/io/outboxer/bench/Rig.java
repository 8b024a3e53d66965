package io.outboxer.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * What every scenario works with: the database, the server with the product, the broker, the limit
 * pipeline and the CPU meter; and the outbox's shape (partitions, batch size) that both share.
 */
record Rig(
    Db db,
    LibertyServer server,
    KafkaBroker kafka,
    LimitPipeline limit,
    CpuMeter meter,
    HttpClient http,
    int partitions,
    int batchSize,
    String topic) {

  /** The outbox the limit pipeline drains: rows the server's engine does not know. */
  static final String LIMIT_OUTBOX = "limit";

  /** The start of the group keys, and so of the record keys, of {@link #wakeOrders}' messages. */
  static final String WAKE_KEYS = "order:wake-";

  /** Order ids that wake each partition's worker at once when paid (see {@link #wakeAll}). */
  List<String> wakeOrders() {
    return Db.orderPerPartition(WAKE_KEYS.substring("order:".length()), partitions);
  }

  /**
   * Pays one order per partition through the demo, all at once: the publishing commits wake every
   * partition's worker, as an application's publishes would, instead of leaving a backlog written
   * by SQL to the next poll.
   */
  void wakeAll(List<String> orders) throws Exception {
    List<CompletableFuture<HttpResponse<String>>> paid = new ArrayList<>();
    for (String order : orders) {
      paid.add(http.sendAsync(request("/demo/orders/" + order + "/paid"), BodyHandlers.ofString()));
    }
    for (int i = 0; i < orders.size(); i++) {
      HttpResponse<String> r;
      try {
        r = paid.get(i).get();
      } catch (ExecutionException e) {
        // A connection kept alive past the server's idle timeout (a long scenario before) is
        // closed under the request: sent again once, on a new connection.
        if (!(e.getCause() instanceof IOException)) {
          throw e;
        }
        r = http.send(request("/demo/orders/" + orders.get(i) + "/paid"), BodyHandlers.ofString());
      }
      if (r.statusCode() != 201) {
        throw new IllegalStateException("paying " + orders.get(i) + " answered " + r.statusCode());
      }
    }
  }

  /**
   * Posts to {@code path}, once more on a new connection when a connection kept alive past the
   * server's idle timeout (or a restart) is closed under the request.
   */
  HttpResponse<String> post(String path) throws Exception {
    return post(request(path));
  }

  private HttpResponse<String> post(HttpRequest request) throws Exception {
    try {
      return http.send(request, BodyHandlers.ofString());
    } catch (IOException e) {
      return http.send(request, BodyHandlers.ofString());
    }
  }

  /**
   * Revives every dead message of {@code outbox} through the admin API (the server's sample
   * registry's user): the commit wakes each of its partitions.
   */
  void reviveDead(String outbox, int expected) throws Exception {
    String login = "admin:admin";
    HttpResponse<String> r =
        post(
            HttpRequest.newBuilder(
                    URI.create(server.url("/outboxer/admin/outboxes/" + outbox + "/retry-dead")))
                .timeout(Duration.ofSeconds(180))
                .header(
                    "Authorization",
                    "Basic " + Base64.getEncoder().encodeToString(login.getBytes(UTF_8)))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    if (r.statusCode() != 200
        || !r.body().replace(" ", "").equals("{\"messages\":" + expected + "}")) {
      throw new IllegalStateException(
          "reviving " + outbox + "'s dead messages answered " + r.statusCode() + ": " + r.body());
    }
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create(server.url(path)))
        .timeout(Duration.ofSeconds(180))
        .POST(HttpRequest.BodyPublishers.noBody())
        .build();
  }

  /** The server's environment on the bench's PostgreSQL database. */
  static Map<String, String> onPostgresql(Db db) {
    return Map.of("OUTBOXER_DATABASE", "postgresql", "DB_NAME", db.name);
  }

  /** The server's environment on a SQLite file. */
  static Map<String, String> onSqlite(SqliteDb sqlite) {
    return Map.of("OUTBOXER_DATABASE", "sqlite", "SQLITE_FILE", sqlite.file().toString());
  }

  /** Stops the server and starts it again with {@code env}, its variables unchanged. */
  void restart(Map<String, String> env) throws Exception {
    server.close();
    server.start(Map.of(), env);
  }
}
