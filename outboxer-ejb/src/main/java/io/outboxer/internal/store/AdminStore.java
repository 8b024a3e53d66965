package io.outboxer.internal.store;

import java.util.Map;
import java.util.Optional;

/** Operators' reads and repairs, in the caller's transaction. */
public interface AdminStore {

  /** Per partition and state, how many messages the outbox holds. */
  Map<Integer, Map<RowState, Long>> countByPartition(String outbox);

  /** One message of an outbox, whatever its state. */
  Optional<StoredMessage> find(String outbox, long id);

  /**
   * Makes dead messages ready again with their attempts reset: all of the outbox's, or the one with
   * {@code id}.
   *
   * @return how many were revived
   */
  int reviveDead(String outbox, Long id);

  /**
   * Deletes a message; with {@code releaseGroup}, its group's held rows become ready (it was the
   * group's failing head).
   */
  void discard(StoredMessage message, boolean releaseGroup);
}
