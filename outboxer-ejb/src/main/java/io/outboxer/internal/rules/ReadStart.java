package io.outboxer.internal.rules;

/**
 * Where a worker's next batch read of its partition may start (ADR 0014): from {@code id} on, as
 * long as the partition's repair count is still {@code repairs}. Below {@code id} no row is ready
 * that the worker does not know of: its own batches were all deleted or held there, blocked rows
 * were read past from {@code unheld} on, and no row can commit below an id already read where reads
 * wait for writers (ADR 0010). An operator's repair (a revive, a discard, a release) can make rows
 * ready below it, and raises the count in the same transaction.
 *
 * <p>Reads that start past their last batch read past the rows of blocked groups without holding
 * them, so that the rows behind a long blocked group go out first, and hold them once nothing else
 * is ready (ADR 0016): {@code unheld} is where those rows start.
 *
 * @param id the first id the read may return; 0 reads from the partition's first ready row
 * @param repairs the repair count the start was taken under; -1 when not known
 * @param unheld where the rows of blocked groups that were read past and are not held yet start:
 *     the next holding reads from there (up to the rows published since, which may lie below {@code
 *     id} or, while holding, above it); 0 when there are none
 */
public record ReadStart(long id, long repairs, long unheld) {

  /** The partition's first ready row, as after taking the lease. */
  public static final ReadStart FIRST_ROW = new ReadStart(0, -1);

  /** From {@code id} on, with no blocked rows read past. */
  public ReadStart(long id, long repairs) {
    this(id, repairs, 0);
  }

  /** Past a batch that ended at {@code lastId} and whose rows were all deleted. */
  public ReadStart past(long lastId) {
    return new ReadStart(lastId + 1, repairs, unheld);
  }

  /**
   * From the first ready row again, keeping the repair count: blocked rows read past are met again
   * there.
   */
  public ReadStart fromFirstRow() {
    return new ReadStart(0, repairs);
  }
}
