package io.outboxer.it.support;

import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.RetryPolicy;
import io.outboxer.internal.store.Lease;
import io.outboxer.internal.store.LeaseStore;
import java.time.Duration;
import java.util.UUID;

/**
 * An outbox of one partition that no engine delivers, its lease held by the test: for tests that
 * drive the store as a worker does.
 *
 * @param name the outbox's name, unique to the test
 * @param lease the lease of its partition 0
 */
public record LeasedOutbox(String name, Lease lease) {

  /** Group ordering, retried forever once an hour: no retry comes due while a test runs. */
  public static final RetryPolicy HOURLY_RETRIES =
      new RetryPolicy(Ordering.GROUP, 0, Duration.ofHours(1), Duration.ofHours(1));

  /**
   * A new outbox named {@code prefix} and a random suffix, its partition's lease taken by {@code
   * owner} for ten minutes.
   */
  public static LeasedOutbox take(LeaseStore leases, String prefix, String owner) {
    String name = prefix + UUID.randomUUID().toString().substring(0, 8);
    leases.createLeases(name, 1);
    return new LeasedOutbox(
        name, leases.acquire(name, 0, owner, Duration.ofMinutes(10)).orElseThrow());
  }

  /** Inserts one message of {@code group} into partition 0, as a publish would; its id. */
  public long insert(String group) {
    return MessageRows.insert(name, group);
  }
}
