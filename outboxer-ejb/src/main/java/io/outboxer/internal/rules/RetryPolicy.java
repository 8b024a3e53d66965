package io.outboxer.internal.rules;

import io.outboxer.spi.Envelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What an outbox does with a failed message (spec: "When a message fails"): retry it after an
 * exponential backoff, or, after {@code maxAttempts} failures, let it die; and, with group
 * ordering, release the rows held behind it once it is confirmed or dead.
 *
 * @param ordering the outbox's ordering
 * @param maxAttempts failed attempts after which a message is dead; 0 retries forever
 * @param backoffMin the delay after the first failure
 * @param backoffMax the longest delay
 */
public record RetryPolicy(
    Ordering ordering, int maxAttempts, Duration backoffMin, Duration backoffMax) {

  /** True when failed messages are retried forever. */
  public boolean retriesForever() {
    return maxAttempts == 0;
  }

  /** The writes that record {@code outcome}, decided by this policy. */
  public Completion complete(BatchOutcome outcome) {
    boolean grouped = ordering == Ordering.GROUP;
    List<Long> delete = new ArrayList<>(outcome.confirmed().size());
    Set<String> release = new LinkedHashSet<>();
    for (Envelope e : outcome.confirmed()) {
      delete.add(e.id());
      if (grouped && e.groupKey() != null && e.attempt() > 1) {
        release.add(e.groupKey()); // a head that had failed went out: its group moves on
      }
    }
    List<Completion.Failure> failures = new ArrayList<>(outcome.failed().size());
    for (BatchOutcome.Failure f : outcome.failed()) {
      Envelope e = f.envelope();
      boolean dead = !retriesForever() && e.attempt() >= maxAttempts;
      Completion.GroupEffect effect = Completion.GroupEffect.NONE;
      if (grouped && e.groupKey() != null && dead) {
        // The group moves on. While its head waits, the batch reads hold its rows as they meet
        // them (ADR 0002), a bounded number per read.
        effect = Completion.GroupEffect.RELEASE;
      }
      Duration retryAfter = dead ? null : Backoff.after(e.attempt(), backoffMin, backoffMax);
      failures.add(new Completion.Failure(e.id(), e.groupKey(), f.reason(), retryAfter, effect));
    }
    return new Completion(List.copyOf(delete), List.copyOf(release), List.copyOf(failures));
  }
}
