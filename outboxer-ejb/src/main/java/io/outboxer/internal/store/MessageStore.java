package io.outboxer.internal.store;

import io.outboxer.internal.entity.OutboxRecord;
import io.outboxer.internal.rules.Completion;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.ReadBatch;
import io.outboxer.internal.rules.ReadStart;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The message rows as publishers and workers use them. The worker's methods are one transaction
 * each, and none opens a second one while the first holds a connection (SQLite's pool holds one).
 */
public interface MessageStore {

  /**
   * Inserts {@code record} in the caller's transaction, first taking the transaction-scoped lock on
   * {@code lockKey} where the database needs one to serialize writers ({@code null}: no lock). With
   * {@code announce}, the insert tells workers that the transaction may commit rows in the record's
   * partition from the id sequence's next value on (ADR 0010): it takes that partition's lock and,
   * unless the transaction holds one still (a rollback to a savepoint releases it), the lock on
   * that lower bound of its ids, before the row's id is drawn. Nothing of that where the database
   * has one writer at a time.
   *
   * @return the id the database gave the row
   */
  long insert(OutboxRecord record, Long lockKey, boolean announce);

  /**
   * Whether the database plans statements by statistics of the outbox table, which {@link
   * #refreshStatistics} then keeps; answered without a transaction.
   */
  boolean keepsStatistics();

  /**
   * Takes the outbox table's statistics again where they count far fewer rows than changed since
   * they were taken (a burst into an outbox analyzed while idle), in a transaction of its own, one
   * transaction of all servers at a time: a call while another takes them waits for it, and then
   * finds them fresh.
   *
   * @return true when they were taken
   */
  boolean refreshStatistics();

  /**
   * Reads the next batch of {@code lease}'s partition in id order, in a transaction of its own that
   * first checks the lease: heads whose retry time has come are ready again; with group ordering,
   * rows met behind a blocked head of their group are held (once each) and left out, and the held
   * rows of a group that no longer has a failing head are released; with total ordering, nothing is
   * read while a head waits. The cost does not grow with the rows held behind blocked heads (ADR
   * 0002). Each envelope's attempt is its row's failed attempts plus one.
   *
   * <p>With {@code waitsForWriters}, where writers are not serialized by the database, nothing is
   * read from the smallest id that a transaction still in flight may commit in the partition on
   * (ADR 0010), and the read starts at {@code start} when the partition's repair count is still the
   * one {@code start} was taken under (ADR 0014): rows deleted while a long transaction holds back
   * the database's cleanup stay in the index, and starting past them keeps the read's cost from
   * growing with them. There, a read whose rows are all behind blocked heads reads past them,
   * leaving them ready, to the rows behind them, and the blocked rows read past are held by the
   * read that finds nothing else ready (ADR 0016): until then, a read from the first row walks them
   * again in one statement. A read that makes rows ready again itself (heads due again, held rows
   * released), and every read without {@code waitsForWriters} or where the database has one writer,
   * starts at the partition's first ready row.
   *
   * <p>A transaction that holds blocked rows read past ends before its next read once {@code woken}
   * says that rows may have come meanwhile (a wake-up for the partition), so that they do not wait
   * for the holding, which is not urgent.
   *
   * @return the batch (no envelopes when nothing is due) and where it started, or empty when the
   *     lease was no longer valid, in which case nothing was changed
   */
  Optional<ReadBatch> nextBatch(
      Lease lease,
      Ordering ordering,
      int batchSize,
      boolean waitsForWriters,
      ReadStart start,
      BooleanSupplier woken);

  /**
   * Per partition of {@code outbox} in which a transaction that published is still in flight, the
   * oldest such publish (ADR 0010); empty where the database has one writer at a time.
   */
  List<InFlightPublish> oldestInFlight(String outbox);

  /**
   * What keeps this database from commit-safe order without serialized writers (ADR 0010), each
   * with how to fix it: an id sequence that caches ids per session, transactions at another level
   * than read committed. Empty where nothing does, and where the database has one writer at a time.
   */
  List<String> commitOrderProblems();

  /**
   * Makes every held row of {@code outbox} ready, raising the repair count of its partitions: held
   * rows wait behind a failing head of their group only with group ordering, so an outbox started
   * with another ordering releases them.
   *
   * @return how many rows were released
   */
  int releaseHeld(String outbox);

  /**
   * Applies a delivered batch's {@code completion} in one transaction, fenced by {@code lease}:
   * deletes the confirmed messages, records the failures, and holds or releases their groups.
   *
   * @return false, having changed nothing, when the lease was no longer valid
   */
  boolean complete(Lease lease, Completion completion);
}
