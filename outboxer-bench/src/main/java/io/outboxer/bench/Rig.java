package io.outboxer.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

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

  /** Order ids that wake each partition's worker at once when paid (see {@link #wakeAll}). */
  List<String> wakeOrders() {
    return Db.orderPerPartition("wake-", partitions);
  }

  /**
   * Pays one order per partition through the demo: the publishing commits wake every partition's
   * worker, as an application's publishes would, instead of leaving a backlog written by SQL to the
   * next poll.
   */
  void wakeAll(List<String> orders) throws Exception {
    for (String order : orders) {
      HttpResponse<String> r = post("/demo/orders/" + order + "/paid");
      if (r.statusCode() != 201) {
        throw new IllegalStateException("paying " + order + " answered " + r.statusCode());
      }
    }
  }

  HttpResponse<String> post(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.url(path)))
            .timeout(Duration.ofSeconds(180))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  void truncate() throws Exception {
    db.execute("truncate outboxer_message");
  }
}
