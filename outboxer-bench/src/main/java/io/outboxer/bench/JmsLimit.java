package io.outboxer.bench;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.ClassLoaderAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The limit pipeline into JMS, {@code io.outboxer.bench.jms.JmsLimitServlet}, which runs in the
 * server: deployed as the WAR {@code bench-limit} before the server starts, and driven over HTTP.
 */
final class JmsLimit {

  /** The servlet's class file, added by name: the bench's JVM has no servlet API to load it. */
  private static final String SERVLET = "io/outboxer/bench/jms/JmsLimitServlet.class";

  private final Rig rig;

  JmsLimit(Rig rig) {
    this.rig = rig;
  }

  /** Writes the WAR {@code bench-limit.war} into the {@code dropins} of server {@code name}. */
  static void deploy(Path wlp, String name) {
    ShrinkWrap.create(WebArchive.class, "bench-limit.war")
        .add(new ClassLoaderAsset(SERVLET), "WEB-INF/classes/" + SERVLET)
        .as(ZipExporter.class)
        .exportTo(wlp.resolve("usr/servers/" + name + "/dropins/bench-limit.war").toFile(), true);
  }

  /** Drains {@code outbox} into the queue; returns how many messages it sent. */
  long drain(String outbox) throws Exception {
    return answer(
        rig.post(
            "/bench-limit/jms/drain?outbox="
                + outbox
                + "&partitions="
                + rig.partitions()
                + "&batch="
                + rig.batchSize()));
  }

  /** Empties the queue; returns how many messages it held. */
  long purge() throws Exception {
    return answer(rig.post("/bench-limit/jms/purge"));
  }

  private static long answer(HttpResponse<String> r) {
    if (r.statusCode() != 200) {
      throw new IllegalStateException(
          "the JMS limit pipeline answered " + r.statusCode() + ": " + r.body());
    }
    return Long.parseLong(r.body().trim());
  }
}
