package io.outboxer.web;

import io.outboxer.OutboxCounts;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The counts of each outbox over the last {@link #KEPT} minutes, for the dashboard's chart. Samples
 * are the counts the API answered with, at most one per outbox every {@link #EVERY}: history is
 * kept while someone looks, and costs nothing when nobody does.
 */
@ApplicationScoped
public class CountsHistory {

  static final Duration EVERY = Duration.ofSeconds(5);
  static final Duration KEPT = Duration.ofMinutes(15);

  /** The counts of one outbox at one time. */
  public record Sample(Instant at, long pending, long retrying, long held, long dead) {}

  private final Map<String, Deque<Sample>> samples = new ConcurrentHashMap<>();
  private final Clock clock;

  public CountsHistory() {
    this(Clock.systemUTC());
  }

  CountsHistory(Clock clock) {
    this.clock = clock;
  }

  /** Keeps {@code counts} as a sample, unless the outbox has one younger than {@link #EVERY}. */
  public void record(OutboxCounts counts) {
    Instant now = clock.instant();
    Deque<Sample> kept = samples.computeIfAbsent(counts.outbox(), o -> new ArrayDeque<>());
    synchronized (kept) {
      Sample last = kept.peekLast();
      if (last == null || !now.isBefore(last.at().plus(EVERY))) {
        kept.addLast(
            new Sample(now, counts.pending(), counts.retrying(), counts.held(), counts.dead()));
      }
      while (!kept.isEmpty() && kept.peekFirst().at().isBefore(now.minus(KEPT))) {
        kept.removeFirst();
      }
    }
  }

  /** The outbox's samples, oldest first. */
  public List<Sample> of(String outbox) {
    Deque<Sample> kept = samples.get(outbox);
    if (kept == null) {
      return List.of();
    }
    synchronized (kept) {
      return List.copyOf(kept);
    }
  }
}
