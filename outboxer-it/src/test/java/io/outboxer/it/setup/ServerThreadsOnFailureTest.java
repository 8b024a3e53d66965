package io.outboxer.it.setup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServerThreadsOnFailureTest {

  private static final String DUMP =
      """
      2026-12-05 01:02:03
      Full thread dump OpenJDK 64-Bit Server VM (17.0.13+11 mixed mode, sharing):

      "Default Executor-thread-7" #71 daemon prio=5 os_prio=0 cpu=12.5ms elapsed=30.1s \
      tid=0x00007f nid=0x1a waiting on condition  [0x00007e]
         java.lang.Thread.State: TIMED_WAITING (parking)
      \tat jdk.internal.misc.Unsafe.park(java.base@17.0.13/Native Method)
      \tat com.ibm.ejs.j2c.FreePool.queueRequest(FreePool.java:412)
      \tat io.outboxer.internal.store.JpaMessageStore.nextBatch(JpaMessageStore.java:120)

      "Default Executor-thread-8" #72 daemon prio=5 os_prio=0 cpu=1.0ms elapsed=30.1s \
      tid=0x00007f nid=0x1b waiting on condition  [0x00007e]
         java.lang.Thread.State: WAITING (parking)
      \tat jdk.internal.misc.Unsafe.park(java.base@17.0.13/Native Method)
      \tat java.util.concurrent.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1062)

      "kafka-producer-network-thread | outboxer-orders-0" #90 daemon prio=5 os_prio=0 \
      cpu=3.0ms elapsed=9.0s tid=0x00007f nid=0x1c runnable  [0x00007e]
         java.lang.Thread.State: RUNNABLE
      \tat sun.nio.ch.EPoll.wait(java.base@17.0.13/Native Method)
      \tat org.sqlite.core.NativeDB.step(Native Method)

      "C2 CompilerThread0" #14 daemon prio=9 os_prio=0 cpu=900.0ms elapsed=30.1s \
      tid=0x00007f nid=0x1d waiting on condition  [0x0000000000000000]
         java.lang.Thread.State: RUNNABLE
         Compiling: 4242       4       org.sqlite.core.NativeDB::step (0 bytes)
      """;

  @Test
  void onlyThreadsInOutboxerThePoolOrADriverAreKeptWithoutTheirTimings() {
    List<List<String>> threads = ServerThreadsOnFailure.relevant(DUMP);

    assertThat(threads)
        .extracting(t -> t.get(0))
        .containsExactly(
            "\"Default Executor-thread-7\" #71 daemon prio=5 waiting on condition  [0x00007e]",
            "\"kafka-producer-network-thread | outboxer-orders-0\" #90 daemon prio=5"
                + " runnable  [0x00007e]");
    assertThat(threads.get(0))
        .hasSize(5)
        .contains("   java.lang.Thread.State: TIMED_WAITING (parking)");
  }

  @Test
  void aThreadShowsItsTopFramesThenOnlyTheRelevantOnesCountingTheRest() {
    List<String> thread =
        new ArrayList<>(List.of("\"worker\" #1", "java.lang.Thread.State: RUNNABLE"));
    for (int i = 1; i <= 10; i++) {
      thread.add("\tat java.f" + i + "(F.java)");
    }
    thread.addAll(
        List.of(
            "\tat io.outboxer.internal.worker.PartitionWorker.run(PartitionWorker.java:9)",
            "\tat java.g1(G.java)",
            "\tat java.g2(G.java)"));

    assertThat(ServerThreadsOnFailure.frames(thread))
        .containsExactly(
            "java.lang.Thread.State: RUNNABLE",
            "at java.f1(F.java)",
            "at java.f2(F.java)",
            "at java.f3(F.java)",
            "at java.f4(F.java)",
            "at java.f5(F.java)",
            "at java.f6(F.java)",
            "(4 more)",
            "at io.outboxer.internal.worker.PartitionWorker.run(PartitionWorker.java:9)",
            "(2 more)");
  }
}
