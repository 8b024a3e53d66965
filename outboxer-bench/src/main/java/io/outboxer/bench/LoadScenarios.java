package io.outboxer.bench;

import static io.outboxer.bench.Scenarios.NO_TARGET;
import static io.outboxer.bench.Scenarios.figure;

import io.outboxer.bench.Requests.Latency;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

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
   * The profile of P2's business transaction: a run of 8 clients with {@code publish} and one
   * without, each recorded by JDK Flight Recorder in the server until the outbox is empty again (so
   * that the relay's work for the run is in it), with JFR's default settings (Java samples every 20
   * ms, an overhead of about one percent); the server's Java samples per 1,000 transactions, by
   * what the sampled thread was doing.
   */
  void profilePublishing(Path out) throws Exception {
    Duration run = Duration.ofSeconds(5);
    requests.businessTransactions(8, true, Duration.ofSeconds(3));
    requests.businessTransactions(8, false, Duration.ofSeconds(3));
    long pid = rig.server().pid();
    for (boolean publish : new boolean[] {true, false}) {
      String name = publish ? "business tx with publish" : "business tx without publish";
      Path recording = out.resolve(publish ? "liberty-publish.jfr" : "liberty-insert.jfr");
      Profile.jcmd(pid, "JFR.start", "name=p2", "settings=default", "filename=" + recording);
      Requests.Load load = requests.businessTransactions(8, publish, run);
      Profile.jcmd(pid, "JFR.stop", "name=p2");
      double transactions = load.perSecond() * run.toSeconds();
      if (transactions < 1) {
        report.note("the profile of " + name + " was left out: no transaction completed");
        continue;
      }
      report.profile(
          name,
          "samples/1000 tx",
          Profile.serverSamples(recording, transactions),
          "8 clients, "
              + Math.round(load.perSecond())
              + " tx/s; the server's Java samples per 1,000 transactions by activity, "
              + recording.getFileName()
              + " holds the recording");
    }
  }

  /** The relay calls' totals, or null when the server's metrics could not be read. */
  private static RelayCalls.Totals totals(RelayCalls calls) {
    try {
      return calls.totals();
    } catch (Exception e) {
      System.out.println("bench: reading the relay's metrics failed: " + e);
      return null;
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
    String set = System.getProperty("bench.p3.rate", "");
    int rate =
        !set.isBlank()
            ? Integer.parseInt(set.trim())
            : Double.isNaN(publishCapacity) ? 500 : (int) Math.min(500, publishCapacity / 2);
    if (rate < 1 || rate > 100_000) {
      throw new IllegalArgumentException(
          "bench.p3.rate must be 1 to 100000 messages per second, not " + rate);
    }
    Duration run = Duration.ofSeconds(10);
    DirectSend direct = new DirectSend(rig, Bench.DIRECT_TOPIC);
    if (!set.isBlank()) {
      report.note("P3 ran at " + rate + " msg/s, as bench.p3.rate set");
    } else if (rate < 500) {
      report.note(
          "P3 ran at "
              + rate
              + " msg/s, half of P2's publishing throughput on this machine, instead of 500");
    }
    requests.commitToBroker(rate, Duration.ofSeconds(4));
    direct.latency(rate, Duration.ofSeconds(2), false);
    direct.latency(rate, Duration.ofSeconds(2), true);
    List<Latency> product = new ArrayList<>();
    List<Latency> floor = new ArrayList<>();
    List<Latency> transactional = new ArrayList<>();
    RelayCalls relayCalls = new RelayCalls(rig.server());
    RelayCalls.Totals relayed = RelayCalls.Totals.NONE;
    boolean profiled = true;
    for (int r = 0; r < reps; r++) {
      RelayCalls.Totals before = profiled ? totals(relayCalls) : null;
      product.add(requests.commitToBroker(rate, run));
      RelayCalls.Totals after = before == null ? null : totals(relayCalls);
      if (after != null) {
        relayed = relayed.plus(after.minus(before));
      } else if (profiled) {
        profiled = false;
        report.note(
            "the relay calls of P3 were not profiled: the server's metrics could not be read");
      }
      floor.add(direct.latency(rate, run, false));
      transactional.add(direct.latency(rate, run, true));
    }
    if (relayed.calls() > 0) {
      report.profile(
          "P3 relay call",
          "ms/call",
          relayed.perCall(),
          Math.round(relayed.calls())
              + " relay calls of the product's runs, "
              + Math.round(1000 * relayed.callSeconds() / relayed.calls())
              + " ms each on average; from the server's relay timer and its Kafka producers' metrics");
    }
    List<String> failed = direct.failures();
    if (!failed.isEmpty()) {
      report.note(
          "P3t: "
              + failed.size()
              + " Kafka transactions failed and were sent again by a new producer (the first: "
              + failed.get(0)
              + ")");
    }
    String note =
        rate + " msg/s for " + run.toSeconds() + " s per repetition, default poll interval";
    String p3t = "direct send in a Kafka transaction, ";
    String t = note + "; profile: what a transaction per record adds to the floor";
    latencyRow(
        "P3", "commit-to-broker p50", product, floor, Latency::p50, note + "; target p50 <= 5 ms");
    latencyRow(
        "P3", "commit-to-broker p99", product, floor, Latency::p99, note + "; target p99 <= 25 ms");
    latencyRow("P3", "commit-to-broker p99.9", product, floor, Latency::p999, note);
    latencyRow("P3t", p3t + "p50", transactional, floor, Latency::p50, t);
    latencyRow("P3t", p3t + "p99", transactional, floor, Latency::p99, t);
  }

  /** A row of P3's latencies: {@code runs} against the floor's, at one percentile. */
  private void latencyRow(
      String id,
      String title,
      List<Latency> runs,
      List<Latency> floor,
      ToDoubleFunction<Latency> at,
      String note) {
    report.add(
        new Result(
            id,
            title,
            "direct send after commit",
            false,
            figure("ms", runs, at),
            figure("ms", floor, at),
            NO_TARGET,
            note,
            Map.of()));
  }
}
