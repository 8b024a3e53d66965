package io.outboxer.it.telemetry;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import javax.management.ObjectName;

/** The server's {@code /metrics}, read over HTTP in Prometheus' text format, as a scraper does. */
public final class MetricsScrape {

  private final String text;

  private MetricsScrape(String text) {
    this.text = text;
  }

  /** This server's HTTP address, from its endpoint MBean (tests run inside the server). */
  public static String serverUrl() throws Exception {
    Object port =
        ManagementFactory.getPlatformMBeanServer()
            .getAttribute(
                new ObjectName(
                    "WebSphere:feature=channelfw,type=endpoint,name=defaultHttpEndpoint"),
                "Port");
    return "http://localhost:" + port;
  }

  /** Scrapes {@code /metrics} now; fails unless it answers 200 in Prometheus' text format. */
  public static MetricsScrape now() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(serverUrl() + "/metrics"))
                    .header("Accept", "text/plain")
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new AssertionError(
          "/metrics answered " + response.statusCode() + ": " + response.body());
    }
    return new MetricsScrape(response.body());
  }

  /**
   * The value of sample {@code name} whose labels include every one of {@code labels} (each {@code
   * key="value"}); fails naming the sample when the scrape has none.
   */
  public double value(String name, String... labels) {
    List<String> wanted = Arrays.stream(labels).toList();
    return text.lines()
        .filter(l -> l.startsWith(name + "{"))
        .filter(l -> wanted.stream().allMatch(w -> l.substring(0, l.indexOf('}')).contains(w)))
        .map(l -> Double.parseDouble(l.substring(l.lastIndexOf('}') + 1).trim().split("\\s+")[0]))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "no sample " + name + " " + wanted + " in /metrics:\n" + outboxerLines()));
  }

  /** The value of {@code name} for {@code outbox}. */
  public double of(String name, String outbox) {
    return value(name, "outbox=\"" + outbox + "\"");
  }

  /** True when the scrape has a sample of {@code name} (with any labels). */
  public boolean has(String name) {
    return text.lines().anyMatch(l -> l.startsWith(name + "{"));
  }

  private String outboxerLines() {
    return String.join("\n", text.lines().filter(l -> l.contains("outboxer")).toList());
  }
}
