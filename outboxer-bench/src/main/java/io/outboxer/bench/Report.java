package io.outboxer.bench;

import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonWriterFactory;
import jakarta.json.stream.JsonGenerator;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The run's results as a table on stdout, {@code bench.json} and the chart {@code bench.png} (none
 * when no scenario ran).
 */
final class Report {

  private final Map<String, String> machine;
  private final List<Result> results = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final List<Recorded> profiles = new ArrayList<>();

  /** A recorded profile: figures by category, in {@code unit}. */
  private record Recorded(String name, String unit, Map<String, Double> figures, String note) {}

  Report(Map<String, String> machine) {
    this.machine = machine;
  }

  void add(Result result) {
    results.add(result);
    System.out.println(row(result));
  }

  /**
   * A recorded profile: where the workers' time went during a drain (ms per stage), or where the
   * server's samples went during business transactions (per 1,000 transactions).
   */
  void profile(String name, String unit, Map<String, Double> figures, String note) {
    Recorded recorded = new Recorded(name, unit, figures, note);
    profiles.add(recorded);
    System.out.println(profileTable(recorded));
  }

  private static String profileTable(Recorded p) {
    StringBuilder t = new StringBuilder("\nprofile " + p.name() + ": " + p.note() + "\n");
    double total = p.figures().values().stream().mapToDouble(Double::doubleValue).sum();
    p.figures().entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(
            e ->
                t.append(
                    String.format(
                        Locale.ROOT,
                        "  %-50s %9.1f %s %5.1f%%%n",
                        e.getKey(),
                        e.getValue(),
                        p.unit(),
                        100 * e.getValue() / total)));
    return t.toString();
  }

  /**
   * Of the scenario ids {@code required}, those without a row whose target holds (left out, failed,
   * or missed), each with why.
   */
  List<String> unmet(List<String> required) {
    List<String> unmet = new ArrayList<>();
    for (String id : required) {
      List<Result> rows = results.stream().filter(r -> r.id().equals(id)).toList();
      if (rows.isEmpty()) {
        unmet.add(id + " (not measured)");
      }
      rows.stream()
          .filter(r -> !Boolean.TRUE.equals(r.met()))
          .forEach(r -> unmet.add(id + " (" + r.title() + ": ratio " + r.ratio() + ")"));
    }
    return unmet;
  }

  void note(String note) {
    notes.add(note);
    System.out.println("note: " + note);
  }

  String table() {
    StringBuilder t = new StringBuilder();
    machine.forEach((k, v) -> t.append(k).append(": ").append(v).append('\n'));
    t.append(
        String.format(
            Locale.ROOT,
            "%n| %-4s | %-44s | %-30s | %-30s | %-22s | %7s | %-7s |%n",
            "id",
            "scenario",
            "product: median (min-max)",
            "reference: median (min-max)",
            "reference",
            "ratio",
            "target"));
    t.append("|------|").append("-".repeat(46)).append('|').append("-".repeat(32)).append('|');
    t.append("-".repeat(32)).append('|').append("-".repeat(24)).append("|---------|---------|\n");
    results.forEach(r -> t.append(row(r)).append('\n'));
    profiles.forEach(p -> t.append(profileTable(p)));
    notes.forEach(n -> t.append("\nnote: ").append(n));
    return t.append('\n').toString();
  }

  private static String row(Result r) {
    return String.format(
        Locale.ROOT,
        "| %-4s | %-44s | %-30s | %-30s | %-22s | %7.3f | %-7s |",
        r.id(),
        r.title(),
        figure(r.product()),
        figure(r.limit()),
        r.reference(),
        r.ratio(),
        Double.isNaN(r.target())
            ? ""
            : (r.higherIsBetter() ? ">= " : "<= ")
                + r.target()
                + (Boolean.TRUE.equals(r.met()) ? " ok" : " NO"));
  }

  private static String figure(Figure f) {
    return String.format(
        Locale.ROOT, "%.1f (%.1f-%.1f) %s", f.median(), f.min(), f.max(), f.unit());
  }

  /**
   * Writes {@code bench.txt}, {@code bench.json} and, when a scenario ran, the chart {@code
   * bench.png} into {@code dir}.
   *
   * @return what it wrote
   */
  String write(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("bench.txt"), table());
    JsonObjectBuilder json = Json.createObjectBuilder();
    JsonObjectBuilder m = Json.createObjectBuilder();
    machine.forEach(m::add);
    json.add("machine", m);
    JsonArrayBuilder scenarios = Json.createArrayBuilder();
    for (Result r : results) {
      JsonObjectBuilder s =
          Json.createObjectBuilder()
              .add("id", r.id())
              .add("title", r.title())
              .add("reference", r.reference())
              .add("higherIsBetter", r.higherIsBetter())
              .add("product", figure(r.product(), r))
              .add("limit", figure(r.limit(), r))
              .add("ratio", r.ratio())
              .add("note", r.note());
      if (!Double.isNaN(r.target())) {
        s.add("target", r.target()).add("met", r.met());
      }
      JsonObjectBuilder cpu = Json.createObjectBuilder();
      r.cpu()
          .forEach(
              (run, cores) -> {
                JsonObjectBuilder c = Json.createObjectBuilder();
                cores.forEach(c::add);
                cpu.add(run, c);
              });
      scenarios.add(s.add("cpuCores", cpu));
    }
    json.add("scenarios", scenarios);
    JsonArrayBuilder recorded = Json.createArrayBuilder();
    for (Recorded p : profiles) {
      JsonObjectBuilder figures = Json.createObjectBuilder();
      p.figures().forEach(figures::add);
      recorded.add(
          Json.createObjectBuilder()
              .add("name", p.name())
              .add("unit", p.unit())
              .add("note", p.note())
              .add("figures", figures));
    }
    json.add("profiles", recorded);
    JsonArrayBuilder n = Json.createArrayBuilder();
    notes.forEach(n::add);
    json.add("notes", n);
    JsonWriterFactory writers =
        Json.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true));
    try (Writer w = Files.newBufferedWriter(dir.resolve("bench.json"))) {
      writers.createWriter(w).writeObject(json.build());
    }
    Path png = dir.resolve("bench.png");
    if (results.isEmpty()) {
      Files.deleteIfExists(png); // only profiles ran: nothing to chart, and no earlier run's chart
      return "bench.json (no scenario ran: no chart)";
    }
    chart(png);
    return "bench.json and bench.png";
  }

  /** A short category name: the id, and for P2 and the latencies which of their rows. */
  private static String label(Result r) {
    String t = r.title();
    if (t.contains(" clients, ")) {
      return r.id() + " " + t.replaceAll(".* (\\d+) clients, (\\S+).*", "$1 clients $2");
    }
    if (t.startsWith("commit-to-broker ")) {
      return r.id() + " " + t.substring("commit-to-broker ".length());
    }
    String last = t.contains(", ") ? t.substring(t.lastIndexOf(", ") + 2) : "";
    if (last.matches("throughput|p[0-9.]+( latency)?")) {
      return r.id() + " " + last; // one of several rows of a scenario: W2's, P3t's
    }
    return r.id();
  }

  private static JsonObjectBuilder figure(Figure f, Result r) {
    JsonArrayBuilder samples = Json.createArrayBuilder();
    f.samples().forEach(samples::add);
    return Json.createObjectBuilder()
        .add("unit", f.unit())
        .add("median", f.median())
        .add("min", f.min())
        .add("max", f.max())
        .add("spread", f.spread())
        .add("samples", samples);
  }

  /**
   * One bar per row: the product's performance as a fraction of its reference's (throughput ratio,
   * or the inverse ratio of times), with the range the repetitions span, beside the target.
   */
  private void chart(Path file) throws IOException {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(1400)
            .height(700)
            .title("Outboxer against its reference, same run (1 = as fast as the reference)")
            .xAxisTitle("scenario")
            .yAxisTitle("product performance / reference")
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setXAxisLabelRotation(90);
    chart.getStyler().setErrorBarsColor(java.awt.Color.DARK_GRAY);
    List<String> names = new ArrayList<>();
    List<Double> performance = new ArrayList<>();
    List<Double> errors = new ArrayList<>();
    List<Double> targets = new ArrayList<>();
    for (Result r : results) {
      names.add(label(r));
      // A product figure of 0 (nothing measured) has no finite performance: drawn as 0.
      performance.add(Double.isFinite(r.performance()) ? r.performance() : 0);
      double worst =
          r.higherIsBetter()
              ? r.product().min() / r.limit().max()
              : r.limit().min() / r.product().max();
      errors.add(Double.isFinite(r.performance()) ? Math.max(0, r.performance() - worst) : 0);
      targets.add(Double.isNaN(r.target()) ? 0 : r.higherIsBetter() ? r.target() : 1 / r.target());
    }
    chart.addSeries(
        "product / reference (median; bar: to the worst repetition pair)",
        names,
        performance,
        errors);
    chart.addSeries("target", names, targets);
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
