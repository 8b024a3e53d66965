package io.outboxer.internal.relay.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many messages of a batch one relay call sends, per partition: all of it, until a call ends by
 * its deadline with messages it sent still unsettled (a transaction too large to commit within the
 * call's budget, say); the partition's next calls then send half as many, down to one, and twice as
 * many again after each call that settled all it sent, up to the whole batch. The rest of a batch
 * stays pending, uncharged, and is read again. So a destination that is slow for the batch size
 * still makes progress, instead of timing out on the same batch forever.
 */
public final class CallSizes {

  /** Per partition, the most messages a call sends; absent: the whole batch. */
  private final Map<Integer, Integer> limits = new ConcurrentHashMap<>();

  /** How many messages of a batch of {@code batchSize} the partition's call sends. */
  public int limit(int partition, int batchSize) {
    return Math.min(batchSize, limits.getOrDefault(partition, batchSize));
  }

  /**
   * Records how the partition's call ended.
   *
   * @param sent how many messages it sent
   * @param settled how many of them it settled (confirmed or refused)
   * @param timedOut true when it ended by its deadline
   */
  public void ended(int partition, int sent, int settled, boolean timedOut) {
    if (timedOut && settled < sent) {
      limits.put(partition, Math.max(1, sent / 2));
    } else if (settled == sent) {
      // Past any batch size (at most a million): whole batches again.
      limits.computeIfPresent(partition, (p, limit) -> limit >= 1 << 20 ? null : limit * 2);
    }
  }
}
