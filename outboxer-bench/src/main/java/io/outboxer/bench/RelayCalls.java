package io.outboxer.bench;

import com.sun.tools.attach.VirtualMachine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Where the relay calls of the server's {@code default} outbox spend their time: the calls' count
 * and total time from the server's {@code outboxer.relay.call} timer ({@code /metrics}), and the
 * time its Kafka producers spent in {@code commitTransaction} (which waits for the acknowledgements
 * first) and in any {@code flush}, from the producers' own metrics, read through JMX in the
 * server's JVM.
 */
final class RelayCalls {

  private static final Pattern TIMER =
      Pattern.compile(
          "^outboxer_relay_call_seconds_(count|sum)\\{[^}]*outbox=\"default\"[^}]*\\} (\\S+)$",
          Pattern.MULTILINE);

  /**
   * Totals at one moment: the relay calls and their seconds, and per Kafka producer (by client id)
   * the seconds of its flushes and commits.
   */
  record Totals(double calls, double callSeconds, Map<String, double[]> producers) {

    static final Totals NONE = new Totals(0, 0, Map.of());

    /**
     * What happened since {@code earlier}. A producer the relay replaced meanwhile (after a failed
     * or abandoned call) starts its totals again under the same client id: all of its counts are
     * then new.
     */
    Totals minus(Totals earlier) {
      Map<String, double[]> since = new HashMap<>();
      producers.forEach(
          (id, now) -> {
            double[] before = earlier.producers.get(id);
            boolean restarted = before == null || now[0] < before[0] || now[1] < before[1];
            since.put(id, restarted ? now : new double[] {now[0] - before[0], now[1] - before[1]});
          });
      return new Totals(calls - earlier.calls, callSeconds - earlier.callSeconds, since);
    }

    /** Both together, producers summed into one. */
    Totals plus(Totals other) {
      double[] summed = new double[2];
      for (Totals t : List.of(this, other)) {
        for (double[] p : t.producers.values()) {
          summed[0] += p[0];
          summed[1] += p[1];
        }
      }
      return new Totals(
          calls + other.calls, callSeconds + other.callSeconds, Map.of("all", summed));
    }

    /**
     * Milliseconds per call: {@code commitTransaction} (which waits for the acknowledgements
     * itself), a flush before it when the producers made one, and the rest of the call.
     */
    Map<String, Double> perCall() {
      double flush = 0;
      double commit = 0;
      for (double[] p : producers.values()) {
        flush += p[0];
        commit += p[1];
      }
      Map<String, Double> ms = new LinkedHashMap<>();
      if (flush > 0) {
        ms.put("Kafka: waiting for the acknowledgements (flush)", round(1000 * flush / calls));
      }
      ms.put("Kafka: commitTransaction (with the acknowledgements)", round(1000 * commit / calls));
      ms.put(
          "the rest of the call (begin, send, the sends' task)",
          round(1000 * (callSeconds - flush - commit) / calls));
      return ms;
    }

    private static double round(double v) {
      return Math.round(v * 100) / 100.0;
    }
  }

  private final LibertyServer server;
  private final HttpClient http = HttpClient.newHttpClient();

  RelayCalls(LibertyServer server) {
    this.server = server;
  }

  Totals totals() throws Exception {
    String metrics =
        http.send(
                HttpRequest.newBuilder(URI.create(server.url("/metrics?scope=application")))
                    .build(),
                BodyHandlers.ofString())
            .body();
    double calls = -1;
    double seconds = 0;
    Matcher m = TIMER.matcher(metrics);
    while (m.find()) {
      if (m.group(1).equals("count")) {
        calls = Double.parseDouble(m.group(2));
      } else {
        seconds = Double.parseDouble(m.group(2));
      }
    }
    if (calls < 0) {
      throw new IllegalStateException(
          "the server's /metrics shows no outboxer_relay_call_seconds_count of outbox default");
    }
    VirtualMachine vm = VirtualMachine.attach(Long.toString(server.pid()));
    try (JMXConnector c =
        JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()))) {
      MBeanServerConnection mbeans = c.getMBeanServerConnection();
      Map<String, double[]> producers = new HashMap<>();
      for (ObjectName n :
          mbeans.queryNames(new ObjectName("kafka.producer:type=producer-metrics,*"), null)) {
        String client = n.getKeyProperty("client-id");
        if (client.contains("outboxer-default-")) {
          producers.put(
              client,
              new double[] {
                ((Number) mbeans.getAttribute(n, "flush-time-ns-total")).doubleValue() / 1e9,
                ((Number) mbeans.getAttribute(n, "txn-commit-time-ns-total")).doubleValue() / 1e9
              });
        }
      }
      return new Totals(calls, seconds, producers);
    } finally {
      vm.detach();
    }
  }
}
