package io.outboxer.internal.store;

/**
 * Where a worker's next batch read of its partition may start (ADR 0014): from {@code id} on, as
 * long as the partition's repair count is still {@code repairs}. Below {@code id} no row is ready
 * that the worker does not know of: its own batches were all deleted or held there, and no row can
 * commit below an id already read where reads wait for writers (ADR 0010). An operator's repair (a
 * revive, a discard, a release) can make rows ready below it, and raises the count in the same
 * transaction.
 *
 * @param id the first id the read may return; 0 reads from the partition's first ready row
 * @param repairs the repair count the start was taken under; -1 when not known
 */
public record ReadStart(long id, long repairs) {

  /** The partition's first ready row, as after taking the lease. */
  public static final ReadStart FIRST_ROW = new ReadStart(0, -1);

  /** Past a batch that ended at {@code lastId} and whose rows were all deleted. */
  public ReadStart past(long lastId) {
    return new ReadStart(lastId + 1, repairs);
  }

  /** From the first ready row again, keeping the repair count. */
  public ReadStart fromFirstRow() {
    return new ReadStart(0, repairs);
  }
}
