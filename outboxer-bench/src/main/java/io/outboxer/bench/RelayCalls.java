package io.outboxer.bench;

import com.sun.tools.attach.VirtualMachine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.LinkedHashMap;
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
 * time its Kafka producers spent waiting for acknowledgements ({@code flush}) and in {@code
 * commitTransaction}, from the producers' own metrics, read through JMX in the server's JVM.
 */
final class RelayCalls {

  private static final Pattern TIMER =
      Pattern.compile(
          "^outboxer_relay_call_seconds_(count|sum)\\{[^}]*outbox=\"default\"[^}]*\\} (\\S+)$",
          Pattern.MULTILINE);

  /** Totals at one moment: calls, and seconds of calls, flushes, commits and begins. */
  record Totals(double calls, double callSeconds, double flushSeconds, double commitSeconds) {

    Totals minus(Totals earlier) {
      return new Totals(
          calls - earlier.calls,
          callSeconds - earlier.callSeconds,
          flushSeconds - earlier.flushSeconds,
          commitSeconds - earlier.commitSeconds);
    }

    Totals plus(Totals other) {
      return new Totals(
          calls + other.calls,
          callSeconds + other.callSeconds,
          flushSeconds + other.flushSeconds,
          commitSeconds + other.commitSeconds);
    }

    /** Milliseconds per call: the whole call, the acknowledgements, the commit, the rest. */
    Map<String, Double> perCall() {
      Map<String, Double> ms = new LinkedHashMap<>();
      double call = 1000 * callSeconds / calls;
      double flush = 1000 * flushSeconds / calls;
      double commit = 1000 * commitSeconds / calls;
      ms.put("Kafka: waiting for the acknowledgements (flush)", round(flush));
      ms.put("Kafka: commitTransaction", round(commit));
      ms.put("the rest of the call (begin, send, the sends' task)", round(call - flush - commit));
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
    double calls = 0;
    double seconds = 0;
    Matcher m = TIMER.matcher(metrics);
    while (m.find()) {
      if (m.group(1).equals("count")) {
        calls = Double.parseDouble(m.group(2));
      } else {
        seconds = Double.parseDouble(m.group(2));
      }
    }
    VirtualMachine vm = VirtualMachine.attach(Long.toString(server.pid()));
    try (JMXConnector c =
        JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()))) {
      MBeanServerConnection mbeans = c.getMBeanServerConnection();
      double flush = 0;
      double commit = 0;
      for (ObjectName n :
          mbeans.queryNames(new ObjectName("kafka.producer:type=producer-metrics,*"), null)) {
        if (n.getKeyProperty("client-id").contains("outboxer-default-")) {
          flush += ((Number) mbeans.getAttribute(n, "flush-time-ns-total")).doubleValue();
          commit += ((Number) mbeans.getAttribute(n, "txn-commit-time-ns-total")).doubleValue();
        }
      }
      return new Totals(calls, seconds, flush / 1e9, commit / 1e9);
    } finally {
      vm.detach();
    }
  }
}
