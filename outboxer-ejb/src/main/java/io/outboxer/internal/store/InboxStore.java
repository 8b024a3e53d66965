package io.outboxer.internal.store;

/** The consumer side's last processed id per (outbox, group), in the caller's transaction. */
public interface InboxStore {

  /**
   * Makes {@code id} the last id of the group if it is greater than the last one, in one
   * conditional upsert: of concurrent claims of one id, one succeeds.
   *
   * @return true when {@code id} became the group's last id
   */
  boolean claim(String outbox, String groupKey, long id);
}
