package io.outboxer.internal.rules;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Where a worker must stop reading its partition so that no transaction still in flight can commit
 * a lower id behind what it hands over (ADR 0008): below the id sequence's last value plus one,
 * read first, and below the smallest id locked by the transactions that held the partition's lock
 * when the locks were read next. A holder that shows no id yet may have drawn one without locking
 * it: the locks are read again until each such holder shows its id or has ended. Transactions that
 * take the partition's lock after the first reading draw ids above the last value and are ignored.
 */
public final class InFlightBound {

  private long bound;
  private final Set<String> unresolved = new HashSet<>();

  /**
   * @param lastId the id sequence's last value (0 when it never gave one), read before {@code
   *     holders}
   * @param holders each transaction holding the partition's lock, with the smallest id it locked,
   *     or null when it locked none yet
   */
  public InFlightBound(long lastId, Map<String, Long> holders) {
    bound = lastId + 1;
    holders.forEach(
        (transaction, id) -> {
          if (id == null) {
            unresolved.add(transaction);
          } else {
            bound = Math.min(bound, id);
          }
        });
  }

  /**
   * Takes a later reading of the partition's lock holders into account: a first-reading holder that
   * now shows its id bounds the read, one that is gone has ended (committed, and then visible, or
   * rolled back).
   */
  public void reread(Map<String, Long> holders) {
    unresolved.removeIf(
        transaction -> {
          if (!holders.containsKey(transaction)) {
            return true;
          }
          Long id = holders.get(transaction);
          if (id != null) {
            bound = Math.min(bound, id);
          }
          return id != null;
        });
  }

  /** True once every holder of the first reading showed its id or ended. */
  public boolean settled() {
    return unresolved.isEmpty();
  }

  /**
   * The smallest id the worker must not hand over yet: rows below it are final.
   *
   * @throws IllegalStateException while a holder's id is still unknown
   */
  public long bound() {
    if (!settled()) {
      throw new IllegalStateException(
          unresolved.size() + " holders of the partition's lock show no id yet");
    }
    return bound;
  }
}
