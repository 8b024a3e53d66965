package io.outboxer.it.fault;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the fault suite's publishers know was committed (each message id with its group, from the
 * application's answer), how many publishes ended without an answer (committed or not, nobody can
 * say), and what the consumer read, in the order it read it. {@link #check} compares them.
 */
public final class Ledger {

  /** One record the consumer read: the message id, its group and the attempt it was sent in. */
  public record Delivery(long id, String group, int attempt) {}

  /**
   * What the consumer's log shows against the ledger.
   *
   * @param lost committed messages never read
   * @param unexpected messages read that nobody was told were committed (at most one per publish
   *     whose answer was lost)
   * @param reordered messages read, for the first time, after a later message of their group
   * @param duplicates reads of a message read before
   * @param charged reads of a message sent in an attempt after its first: a charged attempt
   */
  public record Check(
      List<Long> lost, List<Long> unexpected, List<Long> reordered, int duplicates, int charged) {}

  private final Map<Long, String> committed = new ConcurrentHashMap<>();
  private final AtomicInteger unanswered = new AtomicInteger();
  private final List<Delivery> deliveries = new ArrayList<>();

  /** A publish the application answered: {@code id} is committed in {@code group}. */
  public void committed(long id, String group) {
    committed.put(id, group);
  }

  /** A publish that ended without an answer. */
  public void unanswered() {
    unanswered.incrementAndGet();
  }

  public int unansweredCount() {
    return unanswered.get();
  }

  public int committedCount() {
    return committed.size();
  }

  /** Records what the consumer read, in the order it read it. */
  public synchronized void delivered(List<Delivery> read) {
    deliveries.addAll(read);
  }

  public synchronized int deliveredCount() {
    return deliveries.size();
  }

  /** True once every message known committed was read. */
  public synchronized boolean allRead() {
    Set<Long> read = new HashSet<>();
    deliveries.forEach(d -> read.add(d.id()));
    return read.containsAll(committed.keySet());
  }

  /**
   * Compares the consumer's log with the ledger. The log of one group is in the order the consumer
   * read it: the records of a group share a Kafka partition, which keeps their order.
   */
  public synchronized Check check() {
    Set<Long> read = new HashSet<>();
    Map<String, Long> highest = new HashMap<>();
    List<Long> unexpected = new ArrayList<>();
    List<Long> reordered = new ArrayList<>();
    int duplicates = 0;
    int charged = 0;
    for (Delivery d : deliveries) {
      if (d.attempt() != 1) {
        charged++;
      }
      if (!read.add(d.id())) {
        duplicates++;
        continue;
      }
      if (!committed.containsKey(d.id())) {
        unexpected.add(d.id());
      }
      Long before = highest.get(d.group());
      if (before != null && before > d.id()) {
        reordered.add(d.id());
      } else {
        highest.put(d.group(), d.id());
      }
    }
    List<Long> lost =
        committed.keySet().stream().filter(id -> !read.contains(id)).sorted().toList();
    return new Check(lost, unexpected, reordered, duplicates, charged);
  }
}
