package io.outboxer.internal.rules;

/**
 * Commit-safe order without serialized writers (ADR 0010). A publishing transaction first takes, in
 * one statement, a shared lock on the id sequence's next value (a lower bound of every id it will
 * draw) and a shared lock on its partition, then inserts; a worker reads the sequence's last value,
 * then the locks, and hands over only rows below the smallest bound locked by a holder of its
 * partition's lock and below that last value plus one.
 *
 * <p>Both are PostgreSQL advisory locks of the two-integer form, which the one-bigint form of the
 * serialize-writes lock ({@link OrderingScope#lockKey}) never meets. A partition's lock is ({@link
 * #space space}, partition), whose first key is negative; an id's is (its high 32 bits, its low 32
 * bits), whose first key never is: ids are positive.
 */
public final class CommitOrder {

  private CommitOrder() {}

  /**
   * The first key of the partition locks of {@code outbox}: MurmurHash3 of its name with the sign
   * bit set. Two outboxes whose names share the other 31 bits share their locks, which only makes
   * their workers wait for each other's publishers too.
   */
  public static int space(String outbox) {
    return Partitioner.hash32(outbox) | Integer.MIN_VALUE;
  }

  /**
   * The smallest id a worker must not hand over yet: rows below it are final.
   *
   * @param lastId the id sequence's last value (0 before the first), read before the locks: every
   *     id up to it was drawn by a transaction that had locked its bound before, so that it has
   *     ended or shows in the locks
   * @param smallestInFlight the smallest bound locked by a transaction holding the partition's
   *     lock, or null when none does
   */
  public static long bound(long lastId, Long smallestInFlight) {
    return smallestInFlight == null ? lastId + 1 : Math.min(lastId + 1, smallestInFlight);
  }
}
