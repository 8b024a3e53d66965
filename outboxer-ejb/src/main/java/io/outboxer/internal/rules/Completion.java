package io.outboxer.internal.rules;

import java.time.Duration;
import java.util.List;

/**
 * The writes that record a delivered batch, applied by the store in one transaction fenced by the
 * partition's lease.
 *
 * @param delete the ids of the confirmed messages
 * @param release groups whose held rows become ready again before the deletes
 * @param failures the failed messages, each with its retry time or death and its group's fate
 */
public record Completion(List<Long> delete, List<String> release, List<Failure> failures) {

  /**
   * True when this completion of a batch of {@code batchSize} messages deletes every one of them
   * and changes nothing else: no failure recorded, no group released.
   */
  public boolean deletesAll(int batchSize) {
    return failures.isEmpty() && release.isEmpty() && delete.size() == batchSize;
  }

  /** What happens to a message's group once its failure is recorded. */
  public enum GroupEffect {
    /**
     * Nothing: the group is not ordered, or the message waits for its retry (the batch reads hold
     * its group's rows as they meet them).
     */
    NONE,
    /** The group's held rows become ready: the message died, the group moves on. */
    RELEASE
  }

  /**
   * One failed message.
   *
   * @param id the message id
   * @param groupKey its group, or null
   * @param reason the relay's reason, kept as the message's last error
   * @param retryAfter the delay before its next attempt; null when the message is dead
   * @param groupEffect what happens to its group
   */
  public record Failure(
      long id, String groupKey, String reason, Duration retryAfter, GroupEffect groupEffect) {

    public boolean dead() {
      return retryAfter == null;
    }
  }
}
