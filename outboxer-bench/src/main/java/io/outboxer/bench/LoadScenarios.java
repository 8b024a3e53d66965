package io.outboxer.bench;

import static io.outboxer.bench.Scenarios.NO_TARGET;
import static io.outboxer.bench.Scenarios.figure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** P2 and P3: the business transaction under load, and the latency of its message to Kafka. */
final class LoadScenarios {

  private final Rig rig;
  private final Report report;
  private final Requests requests;
  private final int reps;

  /**
   * P2's publishing throughput with 8 clients (median), when measured: P3's rate stays under it.
   */
  private double publishCapacity = Double.NaN;

  LoadScenarios(Rig rig, Report report, Requests requests, int reps) {
    this.rig = rig;
    this.report = report;
    this.requests = requests;
    this.reps = reps;
  }

  void p2() throws Exception {
    Duration warmUp = Duration.ofSeconds(3);
    Duration run = Duration.ofSeconds(5);
    for (int clients : new int[] {8, 32}) {
      requests.businessTransactions(clients, true, warmUp);
      requests.businessTransactions(clients, false, warmUp);
      List<Requests.Load> with = new ArrayList<>();
      List<Requests.Load> without = new ArrayList<>();
      List<Map<String, Double>> withCores = new ArrayList<>();
      List<Map<String, Double>> withoutCores = new ArrayList<>();
      for (int r = 0; r < reps; r++) {
        with.add(measured(clients, true, run, withCores));
        without.add(measured(clients, false, run, withoutCores));
      }
      if (clients == 8) {
        publishCapacity = figure("tx/s", with, Requests.Load::perSecond).median();
      }
      String title = "business tx, " + clients + " clients";
      String ref = "same without publish";
      String note = "POST /demo/orders/{id}/paid (REST -> EJB: insert + publish) vs ?publish=false";
      report.add(
          new Result(
              "P2",
              title + ", throughput",
              ref,
              true,
              figure("tx/s", with, Requests.Load::perSecond),
              figure("tx/s", without, Requests.Load::perSecond),
              0.9,
              note,
              Map.of(
                  "product",
                  Drains.averageOf(withCores),
                  "reference",
                  Drains.averageOf(withoutCores))));
      report.add(
          new Result(
              "P2",
              title + ", p50 latency",
              ref,
              false,
              figure("ms", with, Requests.Load::p50Ms),
              figure("ms", without, Requests.Load::p50Ms),
              1.1,
              note,
              Map.of()));
      report.add(
          new Result(
              "P2",
              title + ", p99 latency",
              ref,
              false,
              figure("ms", with, Requests.Load::p99Ms),
              figure("ms", without, Requests.Load::p99Ms),
              NO_TARGET,
              note,
              Map.of()));
    }
  }

  /**
   * One run of business transactions; the cores each process used meanwhile go to {@code cores}.
   */
  private Requests.Load measured(
      int clients, boolean publish, Duration run, List<Map<String, Double>> cores)
      throws Exception {
    CpuMeter.Sample before = rig.meter().sample();
    Requests.Load load = requests.businessTransactions(clients, publish, run);
    cores.add(CpuMeter.cores(before, rig.meter().sample()));
    return load;
  }

  void p3() throws Exception {
    // 500 msg/s, or half of what the server published in P2 when that is less: a steady rate the
    // server keeps up with, not a queue growing in front of it.
    int rate = Double.isNaN(publishCapacity) ? 500 : (int) Math.min(500, publishCapacity / 2);
    Duration run = Duration.ofSeconds(10);
    DirectSend direct = new DirectSend(rig, Bench.DIRECT_TOPIC);
    if (rate < 500) {
      report.note(
          "P3 ran at "
              + rate
              + " msg/s, half of P2's publishing throughput on this machine, instead of 500");
    }
    requests.commitToBroker(rate, Duration.ofSeconds(4));
    direct.latency(rate, Duration.ofSeconds(2));
    List<Requests.Latency> product = new ArrayList<>();
    List<Requests.Latency> floor = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      product.add(requests.commitToBroker(rate, run));
      floor.add(direct.latency(rate, run));
    }
    String ref = "direct send after commit";
    String note =
        rate + " msg/s for " + run.toSeconds() + " s per repetition, default poll interval";
    report.add(
        new Result(
            "P3",
            "commit-to-broker p50",
            ref,
            false,
            figure("ms", product, Requests.Latency::p50),
            figure("ms", floor, Requests.Latency::p50),
            NO_TARGET,
            note + "; target p50 <= 5 ms",
            Map.of()));
    report.add(
        new Result(
            "P3",
            "commit-to-broker p99",
            ref,
            false,
            figure("ms", product, Requests.Latency::p99),
            figure("ms", floor, Requests.Latency::p99),
            NO_TARGET,
            note + "; target p99 <= 25 ms",
            Map.of()));
    report.add(
        new Result(
            "P3",
            "commit-to-broker p99.9",
            ref,
            false,
            figure("ms", product, Requests.Latency::p999),
            figure("ms", floor, Requests.Latency::p999),
            NO_TARGET,
            note,
            Map.of()));
  }
}
