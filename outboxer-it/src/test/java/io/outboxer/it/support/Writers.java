package io.outboxer.it.support;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.naming.InitialContext;

/**
 * Concurrent publishing transactions that nothing serializes: the load under which a later id can
 * commit before an earlier one of its group. Also counts, in what a consumer received, the messages
 * that arrived after a higher id of their group.
 */
public final class Writers {

  /** Publishes message {@code seq} of {@code group}; returns its id. */
  @FunctionalInterface
  public interface Publisher {
    long publish(String group, int seq);
  }

  /**
   * What a run committed.
   *
   * @param committed the ids committed, per group
   * @param rolledBack how many messages were published in transactions that rolled back
   * @param took from the first transaction's start to the last one's end
   */
  public record Run(Map<String, List<Long>> committed, int rolledBack, Duration took) {
    public int count() {
      return committed.values().stream().mapToInt(List::size).sum();
    }
  }

  private Writers() {}

  /**
   * {@code publishers} threads run transactions until at least {@code messages} messages are
   * committed. Each transaction publishes one to three messages of one of {@code groups}, chosen at
   * random, pauses for a random time up to {@code maxPause} before it ends, and rolls back one time
   * in ten.
   */
  public static Run run(
      int publishers, List<String> groups, int messages, Duration maxPause, Publisher publisher)
      throws Exception {
    // Threads of their own, all running at once (the managed executor's pool grows slowly).
    ManagedThreadFactory threadFactory =
        InitialContext.doLookup("java:comp/DefaultManagedThreadFactory");
    ExecutorService executor = Executors.newFixedThreadPool(publishers, threadFactory);
    Map<String, List<Long>> committed = new ConcurrentHashMap<>();
    groups.forEach(g -> committed.put(g, Collections.synchronizedList(new ArrayList<>())));
    AtomicInteger count = new AtomicInteger();
    AtomicInteger rolledBack = new AtomicInteger();
    AtomicInteger seq = new AtomicInteger();
    long start = System.nanoTime();
    List<Future<?>> threads = new ArrayList<>();
    for (int p = 0; p < publishers; p++) {
      threads.add(
          executor.submit(
              () -> {
                UserTransaction tx = InitialContext.doLookup("java:comp/UserTransaction");
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (count.get() < messages) {
                  String group = groups.get(random.nextInt(groups.size()));
                  List<Long> ids = new ArrayList<>();
                  tx.begin();
                  for (int i = random.nextInt(1, 4); i > 0; i--) {
                    ids.add(publisher.publish(group, seq.getAndIncrement()));
                  }
                  Thread.sleep(random.nextLong(maxPause.toMillis() + 1)); // work before the end
                  if (random.nextInt(10) == 0) {
                    tx.rollback();
                    rolledBack.addAndGet(ids.size());
                  } else {
                    tx.commit();
                    committed.get(group).addAll(ids);
                    count.addAndGet(ids.size());
                  }
                }
                return null;
              }));
    }
    try {
      for (Future<?> t : threads) {
        t.get();
      }
    } finally {
      executor.shutdownNow();
    }
    Map<String, List<Long>> byGroup = new LinkedHashMap<>();
    groups.forEach(g -> byGroup.put(g, List.copyOf(committed.get(g))));
    return new Run(byGroup, rolledBack.get(), Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * Per group, how many of the ids received (in arrival order, each counted at its first arrival)
   * came after a higher id of their group.
   */
  public static Map<String, Integer> inversions(Map<String, List<Long>> arrivedByGroup) {
    Map<String, Integer> inversions = new HashMap<>();
    arrivedByGroup.forEach(
        (group, ids) -> {
          long highest = 0;
          int late = 0;
          for (long id : ids) {
            if (id < highest) {
              late++;
            }
            highest = Math.max(highest, id);
          }
          inversions.put(group, late);
        });
    return inversions;
  }
}
