package io.outboxer.internal.rules;

/**
 * The keys of the locks that keep delivery in commit order without serializing writers (ADR 0008).
 * A publisher takes a shared transaction-scoped lock on its partition before the database draws the
 * row's id, and an exclusive one on the first id its transaction drew right after; a worker reads
 * the id sequence's last value, then the locks, and hands over only rows below the smallest id in
 * flight in its partition and below that last value plus one ({@link InFlightBound}).
 *
 * <p>Both are PostgreSQL advisory locks of the two-integer form, which the one-bigint form of the
 * serialize-writes lock ({@link OrderingScope#lockKey}) can never meet. A partition's lock is
 * ({@link #space space}, partition), whose first key is negative; an id's lock is (its high 32
 * bits, its low 32 bits), whose first key never is: ids are positive.
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

  /** The first key of the lock on {@code id}: its high 32 bits. */
  public static int high(long id) {
    if (id <= 0) {
      throw new IllegalArgumentException("ids are positive, not " + id);
    }
    return (int) (id >>> 32);
  }

  /** The second key of the lock on {@code id}: its low 32 bits. */
  public static int low(long id) {
    return (int) id;
  }
}
