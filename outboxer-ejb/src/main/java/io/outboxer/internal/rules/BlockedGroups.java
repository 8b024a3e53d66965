package io.outboxer.internal.rules;

import io.outboxer.spi.Envelope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Group ordering's hold rule for a batch read in id order: a grouped message behind a blocked head
 * of its group (a head waiting for its retry time, or the first held row of the group) must not go
 * to the relay; it is held until the group is released.
 */
public final class BlockedGroups {

  private BlockedGroups() {}

  /** The distinct group keys of {@code batch}, in the order they first appear. */
  public static List<String> groupsOf(List<Envelope> batch) {
    Set<String> groups = new LinkedHashSet<>(batch.size() * 4 / 3 + 1);
    for (Envelope e : batch) {
      if (e.groupKey() != null) {
        groups.add(e.groupKey());
      }
    }
    return List.copyOf(groups);
  }

  /**
   * What the database holds of one group's failure: the id of its head waiting for its retry time,
   * of its first held row, and of its head due again (ready with failed attempts); each null when
   * there is none.
   */
  public record Heads(Long retrying, Long firstHeld, Long dueAgain) {

    /**
     * The id the group is blocked from: rows behind it wait. A retrying head blocks from itself; a
     * head due again goes out, and its group's held rows wait behind it; a group with held rows but
     * no failing head is not blocked (see {@link #orphaned}).
     */
    public Long blockedFrom() {
      if (retrying != null) {
        return retrying;
      }
      return dueAgain != null ? firstHeld : null;
    }

    /**
     * True when the group has held rows but no failing head (it was confirmed, died or was
     * discarded while its rows were being held): the rows must be released, or they would wait
     * forever.
     */
    public boolean orphaned() {
      return firstHeld != null && retrying == null && dueAgain == null;
    }
  }

  /** The groups of {@code heads} whose held rows have no failing head, in no particular order. */
  public static List<String> orphaned(Map<String, Heads> heads) {
    return heads.entrySet().stream()
        .filter(h -> h.getValue().orphaned())
        .map(Map.Entry::getKey)
        .toList();
  }

  /** Per blocked group of {@code heads}, the id it is blocked from. */
  public static Map<String, Long> blockedFrom(Map<String, Heads> heads) {
    Map<String, Long> blockedFrom = new HashMap<>();
    heads.forEach(
        (group, h) -> {
          if (h.blockedFrom() != null) {
            blockedFrom.put(group, h.blockedFrom());
          }
        });
    return blockedFrom;
  }

  /**
   * Splits {@code batch} by where each blocked group is blocked from.
   *
   * @param blockedFrom per blocked group, the id of its blocking message
   * @return the messages free to deliver, in batch order, and the ids to hold
   */
  public static Split split(List<Envelope> batch, Map<String, Long> blockedFrom) {
    if (blockedFrom.isEmpty()) {
      return new Split(batch, List.of());
    }
    List<Envelope> free = new ArrayList<>(batch.size());
    List<Long> hold = new ArrayList<>();
    for (Envelope e : batch) {
      Long from = e.groupKey() == null ? null : blockedFrom.get(e.groupKey());
      if (from != null && e.id() > from) {
        hold.add(e.id());
      } else {
        free.add(e);
      }
    }
    return new Split(List.copyOf(free), List.copyOf(hold));
  }

  /**
   * A batch split by the hold rule.
   *
   * @param free the messages to deliver, in batch order
   * @param hold the ids of the messages to hold
   */
  public record Split(List<Envelope> free, List<Long> hold) {

    /**
     * True when the batch held rows and nothing else: the reader should read on at once rather than
     * end the worker's run with ready rows still behind them.
     */
    public boolean onlyHeld() {
      return free.isEmpty() && !hold.isEmpty();
    }
  }
}
