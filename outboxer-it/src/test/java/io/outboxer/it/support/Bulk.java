package io.outboxer.it.support;

import jakarta.transaction.UserTransaction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Loads an outbox the way the relay tests do: many messages over many groups. */
public final class Bulk {

  /** Publishes one message of {@code group} with sequence number {@code seq}; returns its id. */
  @FunctionalInterface
  public interface Publisher {
    long publish(String group, int seq);
  }

  private static final int PER_TRANSACTION = 500;

  private Bulk() {}

  /**
   * Publishes {@code count} messages round-robin over the groups {@code run + 0} to {@code run +
   * (groups - 1)}, {@value #PER_TRANSACTION} per transaction.
   *
   * @return each group's message ids in publishing order
   */
  public static Map<String, List<Long>> publish(
      UserTransaction tx, String run, int count, int groups, Publisher publisher) throws Exception {
    Map<String, List<Long>> published = new LinkedHashMap<>();
    for (int start = 0; start < count; start += PER_TRANSACTION) {
      tx.begin();
      for (int seq = start; seq < Math.min(start + PER_TRANSACTION, count); seq++) {
        String group = run + (seq % groups);
        published.computeIfAbsent(group, g -> new ArrayList<>()).add(publisher.publish(group, seq));
      }
      tx.commit();
    }
    return published;
  }
}
