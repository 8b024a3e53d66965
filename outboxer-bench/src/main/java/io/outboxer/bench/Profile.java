package io.outboxer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the partition workers' time goes: a JDK Flight Recording of the server during one drain,
 * its samples (running and native) and its waits (parked, blocked, waiting, socket reads, all
 * recorded from 0 ms on) summed per stage of a batch, for the worker threads only.
 */
final class Profile {

  /** Running Java code, sampled every 10 ms ("profile" settings); native code is in the waits. */
  private static final Set<String> SAMPLES = Set.of("jdk.ExecutionSample");

  private static final Set<String> WAITS =
      Set.of("jdk.ThreadPark", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.SocketRead");

  /** The stages, by the first of these methods on a worker's stack below PartitionWorker. */
  private static final Map<String, String> STAGES =
      Map.of(
          "nextBatch", "read batch",
          "complete", "complete batch",
          "deliver", "relay",
          "renew", "lease",
          "acquire", "lease",
          "release", "lease",
          "tryHandBack", "lease");

  private Profile() {}

  /** The recording settings: Java's "profile" settings with every wait recorded. */
  static Path settings(Path dir) throws IOException {
    Path jfc = Path.of(System.getProperty("java.home"), "lib/jfr/profile.jfc");
    String text =
        Files.readString(jfc)
            .replaceAll(
                "<setting name=\"threshold\"([^>]*)>[^<]*<", "<setting name=\"threshold\"$1>0 ms<");
    Path settings = dir.resolve("bench-profile.jfc");
    Files.writeString(settings, text);
    return settings;
  }

  static void jcmd(long pid, String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), "" + pid));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0 || output.contains("Exception")) {
      throw new IllegalStateException("jcmd " + String.join(" ", args) + ": " + output);
    }
  }

  /**
   * Milliseconds of worker-thread time per stage ("relay: Kafka commit", "read batch: JDBC", ...):
   * samples count their sampling period, waits their duration.
   */
  static Map<String, Double> workerTime(Path recording) throws IOException {
    Map<String, Double> ms = new LinkedHashMap<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
      String type = e.getEventType().getName();
      double weight;
      if (SAMPLES.contains(type)) {
        weight = 10;
      } else if (WAITS.contains(type)) {
        weight = e.getDuration().toNanos() / 1e6;
      } else {
        continue;
      }
      String stage = stage(e.getStackTrace());
      if (stage != null) {
        ms.merge(
            stage + (SAMPLES.contains(type) ? " (running)" : " (waiting)"), weight, Double::sum);
      }
    }
    ms.replaceAll((k, v) -> (double) Math.round(v));
    return ms;
  }

  /**
   * Java samples of every thread of the server, per 1,000 business transactions, by what the thread
   * was doing: the request (HTTP, REST, the EJB and its insert), the publish, the wake-up its
   * commit fires, the worker's stages, the relay's sends, Kafka's network threads, the rest. JFR
   * samples a bounded number of threads per period, so the figures compare runs recorded alike
   * rather than give CPU time.
   */
  static Map<String, Double> serverSamples(Path recording, double transactions) throws IOException {
    Map<String, Double> samples = new LinkedHashMap<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
      if (SAMPLES.contains(e.getEventType().getName())) {
        samples.merge(category(e), 1000 / transactions, Double::sum);
      }
    }
    samples.replaceAll((k, v) -> Math.round(v * 10) / 10.0);
    return samples;
  }

  private static String category(RecordedEvent sample) {
    String thread =
        sample.getThread("sampledThread") == null
            ? ""
            : String.valueOf(sample.getThread("sampledThread").getJavaName());
    if (thread.startsWith("kafka-producer-network-thread")) {
      return "Kafka producers' network threads";
    }
    String worker = stage(sample.getStackTrace());
    if (worker != null) {
      return "worker: "
          + worker.substring(0, worker.indexOf(':')).replace("worker, other", "other");
    }
    String stack = frames(sample.getStackTrace());
    for (String[] c : CATEGORIES) {
      if (stack.contains(c[0])) {
        return c[1];
      }
    }
    return "other";
  }

  /** Every frame's class and method, one per line. */
  private static String frames(RecordedStackTrace trace) {
    StringBuilder s = new StringBuilder();
    if (trace != null) {
      for (RecordedFrame f : trace.getFrames()) {
        s.append(f.getMethod().getType().getName()).append('.');
        s.append(f.getMethod().getName()).append('\n');
      }
    }
    return s.toString();
  }

  private static final String REQUEST = "request: HTTP, REST, EJB, insert";

  /**
   * A frame that places a sample off the workers, the first that the stack holds winning. JFR keeps
   * the 64 innermost frames of a stack, so that a deep one may have lost the frames that name its
   * thread's task (the worker, the HTTP channel): frames nearer the top place it then.
   */
  private static final List<String[]> CATEGORIES =
      List.of(
          new String[] {"BoundedSends", "relay: the sends' task"},
          new String[] {"OutboxPublisher.publish", "publish"},
          new String[] {"OutboxerRuntime$", "wake-up after commit"},
          new String[] {"OutboxEngine.onWakeUp", "wake-up after commit"},
          new String[] {"JpaMessageStore$Proxy$_$$_WeldSubclass.nextBatch", "worker: read batch"},
          new String[] {
            "JpaMessageStore$Proxy$_$$_WeldSubclass.complete", "worker: complete batch"
          },
          new String[] {"com.ibm.ws.tcpchannel.", REQUEST},
          new String[] {"com.ibm.ws.http.", REQUEST},
          new String[] {"com.ibm.ws.webcontainer.", REQUEST},
          new String[] {"org.jboss.resteasy.", REQUEST},
          new String[] {"io.outboxer.demo.", REQUEST});

  /** The stage of a worker thread's stack and what it does in it, or null off the workers. */
  private static String stage(RecordedStackTrace trace) {
    if (trace == null) {
      return null;
    }
    List<RecordedFrame> frames = trace.getFrames();
    int worker = -1;
    for (int i = 0; i < frames.size(); i++) {
      if (frames.get(i).getMethod().getType().getName().endsWith("PartitionWorker")) {
        worker = i;
      }
    }
    if (worker < 0) {
      return null;
    }
    String stage = "worker, other";
    int at = worker;
    for (int i = worker - 1; i >= 0; i--) {
      String s = STAGES.get(frames.get(i).getMethod().getName());
      if (s != null) {
        stage = s;
        at = i;
        break;
      }
    }
    return stage + ": " + activity(frames.subList(0, at + 1));
  }

  /**
   * What the frames above the stage show: a Kafka commit (which waits for the acknowledgements
   * itself), a Kafka begin or other Kafka call, a database commit, JDBC, Hibernate, or the rest.
   */
  private static String activity(List<RecordedFrame> inner) {
    String found = "other";
    int rank = ACTIVITIES.size();
    for (RecordedFrame f : inner) {
      String frame = f.getMethod().getType().getName() + "." + f.getMethod().getName();
      for (int i = 0; i < rank; i++) {
        if (frame.matches(ACTIVITIES.get(i)[0])) {
          found = ACTIVITIES.get(i)[1];
          rank = i;
        }
      }
    }
    return found;
  }

  /** Frame patterns and their activity, the first that any frame matches winning. */
  private static final List<String[]> ACTIVITIES =
      List.of(
          new String[] {"org\\.apache\\.kafka\\..*\\.commitTransaction", "Kafka commit"},
          new String[] {"org\\.apache\\.kafka\\..*\\.beginTransaction", "Kafka begin"},
          new String[] {"org\\.apache\\.kafka\\..*", "Kafka client"},
          new String[] {"(com\\.ibm|org\\.postgresql)\\..*\\.commit", "transaction commit"},
          new String[] {"org\\.postgresql\\..*", "JDBC"},
          new String[] {"org\\.hibernate\\..*", "Hibernate"});
}
