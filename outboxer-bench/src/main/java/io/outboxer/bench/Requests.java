package io.outboxer.bench;

import jakarta.json.Json;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * P2 and P3: the demo's business transaction through the container ({@code POST
 * /demo/orders/{id}/paid}, a REST call into an EJB that inserts a payment and, unless told {@code
 * ?publish=false}, publishes one {@code OrderPaid}).
 */
final class Requests {

  private final Rig rig;
  private final int groups;

  Requests(Rig rig, int groups) {
    this.rig = rig;
    this.groups = groups;
  }

  /** One closed-loop run of the business transaction: throughput and latency. */
  record Load(double perSecond, double p50Ms, double p99Ms) {}

  /**
   * P2: {@code clients} threads pay random orders back to back for {@code duration}, with or
   * without the publish; then waits until the outbox is empty again, so that delivery left over
   * from one run does not burden the next.
   */
  Load businessTransactions(int clients, boolean publish, Duration duration) throws Exception {
    String query = publish ? "" : "?publish=false";
    int expected = publish ? 201 : 204;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long end = System.nanoTime() + duration.toNanos();
    long start = System.nanoTime();
    List<Future<Histogram>> runs = new ArrayList<>();
    try {
      for (int c = 0; c < clients; c++) {
        runs.add(
            pool.submit(
                () -> {
                  Histogram latency = new Histogram(60_000_000L, 3);
                  while (System.nanoTime() < end) {
                    int order = ThreadLocalRandom.current().nextInt(groups);
                    long sent = System.nanoTime();
                    HttpResponse<String> r = rig.post("/demo/orders/" + order + "/paid" + query);
                    if (r.statusCode() != expected) {
                      throw new IllegalStateException(
                          "paying order "
                              + order
                              + " answered "
                              + r.statusCode()
                              + ": "
                              + r.body());
                    }
                    latency.recordValue((System.nanoTime() - sent) / 1000);
                  }
                  return latency;
                }));
      }
      Histogram all = new Histogram(60_000_000L, 3);
      for (Future<Histogram> run : runs) {
        all.add(run.get());
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      if (publish) {
        Drains.awaitEmpty(rig.db());
      }
      return new Load(
          all.getTotalCount() / seconds,
          all.getValueAtPercentile(50) / 1000.0,
          all.getValueAtPercentile(99) / 1000.0);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Commit-to-broker latencies of one run, in ms. */
  record Latency(double p50, double p99, double p999, long count) {}

  /**
   * P3, the product: pays orders at {@code perSecond} (open loop, the sends scheduled at fixed
   * times) for {@code duration}; each message's latency runs from the moment its publishing
   * request's answer arrived (its transaction had committed just before) to the moment a {@code
   * read_committed} consumer of the topic received it.
   */
  Latency commitToBroker(int perSecond, Duration duration) throws Exception {
    try (Arrivals arrivals = new Arrivals(rig.kafka().bootstrapServers(), rig.topic())) {
      ExecutorService senders = Executors.newFixedThreadPool(16);
      try {
        List<Future<long[]>> sends = new ArrayList<>();
        long intervalNanos = 1_000_000_000L / perSecond;
        long count = duration.toNanos() / intervalNanos;
        long start = System.nanoTime();
        for (long i = 0; i < count; i++) {
          long due = start + i * intervalNanos;
          sleepUntil(due);
          int order = (int) (i % groups);
          sends.add(
              senders.submit(
                  () -> {
                    HttpResponse<String> r = rig.post("/demo/orders/p3-" + order + "/paid");
                    long committed = System.nanoTime();
                    if (r.statusCode() != 201) {
                      throw new IllegalStateException("paying answered " + r.statusCode());
                    }
                    long id =
                        Json.createReader(new StringReader(r.body()))
                            .readObject()
                            .getJsonNumber("messageId")
                            .longValue();
                    return new long[] {id, committed};
                  }));
        }
        List<long[]> committed = new ArrayList<>();
        for (Future<long[]> send : sends) {
          committed.add(send.get());
        }
        return arrivals.latencies(committed);
      } finally {
        senders.shutdownNow();
        senders.awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }

  static void sleepUntil(long nanoTime) throws InterruptedException {
    long wait = nanoTime - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
