package io.outboxer.internal.rules;

import io.outboxer.spi.Envelope;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The decisions of one batch read of a partition, in one transaction: where each read of ready rows
 * starts and which groups it leaves out, which rows go to the relay, which are held behind a
 * blocked head of their group, which groups are released, and when the transaction ends (ADR 0002,
 * 0014, 0016). A small state machine that knows no database: the store runs what each {@link Step}
 * asks (a read of ready rows, holds, releases) through {@link Rows}, and {@link #select} hands what
 * each read found back to the machine until a step carries the batch.
 *
 * <p>Two phases. <b>Reading</b>: a read returns the ready rows that go out, or, with group
 * ordering, splits them by the hold rule. Where reads wait for writers (no row can commit below an
 * id already read, ADR 0010), a read whose rows are all behind blocked heads of at most {@link
 * #MAX_GROUPS_READ_PAST} groups reads past them, leaving them ready, and the next read leaves those
 * groups out; elsewhere, and past that many groups, such rows are held as they are met. A read that
 * finds held rows whose group has no failing head any more (orphaned) releases them and reads again
 * from the first row, so that they go before the newer rows of their group. After {@link
 * #HELD_READS_PER_TRANSACTION} reads that only held or read past rows, the transaction ends with an
 * empty batch that asks to be read on. <b>Holding</b>: once a read finds nothing else ready, the
 * rows read past are held, from where they start, up to {@link #HELD_READS_PER_TRANSACTION} reads
 * of them, each past the one before; a wake-up for the partition ends the holding after the read
 * under way, and the next run reads from where the reading started again, to the rows published
 * meanwhile.
 */
public final class BatchSelection {

  /** The most reads of rows that all had to be held or read past, per transaction. */
  public static final int HELD_READS_PER_TRANSACTION = 10;

  /**
   * The most groups a transaction's reads leave out after reading past their rows (ADR 0016): the
   * statement compares each row it passes with each of them (with 1,000 groups, 0.7 s per 100,000
   * rows on the benchmark's machine, against 17 ms with one). Rows of further groups are held as
   * they are met.
   */
  public static final int MAX_GROUPS_READ_PAST = 16;

  /** What the store answers and does for a selection, each with its statements. */
  public interface Rows {

    /** Up to the batch size of ready rows, as {@code read} asks, in id order. */
    List<Envelope> ready(Read read);

    /**
     * Per group of {@code rows} with a retrying head or held rows, what the database holds of its
     * failure; no entry for a group that has neither.
     */
    Map<String, BlockedGroups.Heads> heads(List<Envelope> rows);

    /** Makes the held rows of {@code groups} ready again. */
    void release(List<String> groups);

    /** Holds the rows {@code ids}. */
    void hold(List<Long> ids);
  }

  /**
   * A read of ready rows.
   *
   * @param from the first id the read may return; 0 reads from the partition's first ready row
   * @param leaveOut the groups whose rows the read leaves out: rows read past, all blocked
   * @param heads true when the store must look up the heads of the rows' groups ({@link
   *     Rows#heads}): with group ordering only
   */
  public record Read(long from, Set<String> leaveOut, boolean heads) {}

  /**
   * What the store does next: first the releases and holds that the last read decided, then the
   * read, or, when there is none, the transaction ends with the batch.
   *
   * @param release the groups whose held rows become ready
   * @param hold the ids of the rows to hold
   * @param read the next read; null when the selection is done
   * @param batch the batch read; null until the selection is done
   */
  public record Step(List<String> release, List<Long> hold, Read read, ReadBatch batch) {

    static Step read(List<String> release, List<Long> hold, Read read) {
      return new Step(release, hold, read, null);
    }

    static Step done(List<String> release, List<Long> hold, ReadBatch batch) {
      return new Step(release, hold, null, batch);
    }

    public boolean done() {
      return batch != null;
    }
  }

  private final Ordering ordering;
  private final int batchSize;
  private final boolean waitsForWriters;
  private final long repairs;
  private final BooleanSupplier woken;

  /** Where the reading phase reads from. */
  private long from;

  /** Where the rows read past start; 0 when none are. */
  private long unheld;

  /** The groups whose rows this transaction read past: the reads after it leave them out. */
  private final Set<String> readPast = new LinkedHashSet<>();

  private int heldReads;

  /** True once the rows read past are being held. */
  private boolean holding;

  /** Where the holding phase reads from. */
  private long next;

  private int holdingReads;

  /**
   * @param ordering the outbox's ordering
   * @param batchSize the most rows a read returns
   * @param waitsForWriters true where reads wait for writers (ADR 0010): no row can commit below an
   *     id already read, so reads may start past rows they know of
   * @param start where the worker's last batch read said the next one may start
   * @param repairs the partition's repair count as this transaction saw it; -1 when not read
   * @param woken whether a wake-up for the partition arrived since the worker's run began
   */
  public BatchSelection(
      Ordering ordering,
      int batchSize,
      boolean waitsForWriters,
      ReadStart start,
      long repairs,
      BooleanSupplier woken) {
    this.ordering = ordering;
    this.batchSize = batchSize;
    this.waitsForWriters = waitsForWriters;
    this.repairs = repairs;
    this.woken = woken;
    this.from = waitsForWriters && repairs == start.repairs() ? start.id() : 0;
    this.unheld = from > 0 ? start.unheld() : 0;
  }

  /**
   * Runs the selection against {@code rows} to its end.
   *
   * @param promoted true when this transaction made heads ready whose retry time had come: rows
   *     below the start may be ready again
   * @param headWaits whether a head of the partition waits for its retry time; asked with total
   *     ordering only, which reads nothing then
   */
  public ReadBatch select(boolean promoted, BooleanSupplier headWaits, Rows rows) {
    Step step = begin(promoted, headWaits);
    while (!step.done()) {
      List<Envelope> read = rows.ready(step.read());
      step = afterRead(read, step.read().heads() ? rows.heads(read) : Map.of());
      if (!step.release().isEmpty()) {
        rows.release(step.release());
      }
      if (!step.hold().isEmpty()) {
        rows.hold(step.hold());
      }
    }
    return step.batch();
  }

  /** The first step: the first read, or the batch when nothing may be read. */
  public Step begin(boolean promoted, BooleanSupplier headWaits) {
    if (promoted) {
      from = 0;
      unheld = 0;
    }
    if (ordering == Ordering.TOTAL && headWaits.getAsBoolean()) {
      return Step.done(List.of(), List.of(), new ReadBatch(List.of(), unordered(), false));
    }
    return Step.read(List.of(), List.of(), reading());
  }

  /** The step after a read that returned {@code rows}, whose groups have {@code heads}. */
  public Step afterRead(List<Envelope> rows, Map<String, BlockedGroups.Heads> heads) {
    return holding ? afterHoldingRead(rows, heads) : afterReadingRead(rows, heads);
  }

  private Step afterReadingRead(List<Envelope> rows, Map<String, BlockedGroups.Heads> heads) {
    boolean full = rows.size() == batchSize;
    if (ordering != Ordering.GROUP) {
      return Step.done(List.of(), List.of(), new ReadBatch(rows, unordered(), full));
    }
    List<String> orphaned = BlockedGroups.orphaned(heads);
    if (!orphaned.isEmpty()) {
      from = 0;
      unheld = 0;
      readPast.clear();
      return Step.read(orphaned, List.of(), reading());
    }
    BlockedGroups.Split split = BlockedGroups.split(rows, BlockedGroups.blockedFrom(heads));
    List<Long> hold = split.hold();
    if (waitsForWriters && split.onlyHeld()) {
      List<String> blocked = BlockedGroups.groupsOf(rows);
      if (readPast.size() + blocked.size() <= MAX_GROUPS_READ_PAST) {
        // Read past and left ready, so that the rows behind them go out first.
        unheld = unheld == 0 ? rows.get(0).id() : Math.min(unheld, rows.get(0).id());
        readPast.addAll(blocked);
        hold = List.of();
      }
    }
    if (!split.free().isEmpty()) {
      return Step.done(List.of(), hold, new ReadBatch(split.free(), start(), full));
    }
    if (rows.isEmpty()) {
      if (unheld > 0) {
        holding = true;
        next = unheld;
        return Step.read(List.of(), List.of(), holdingRead());
      }
      return Step.done(List.of(), List.of(), new ReadBatch(List.of(), start(), false));
    }
    // Only rows behind blocked heads: read on at once rather than end the worker's run with ready
    // rows still behind them; past them by position where no row can commit below an id already
    // read, from the first row elsewhere (a writer that committed meanwhile may have a lower id).
    if (waitsForWriters) {
      from = rows.get(rows.size() - 1).id() + 1;
    }
    if (++heldReads == HELD_READS_PER_TRANSACTION) {
      return Step.done(List.of(), hold, new ReadBatch(List.of(), start(), true));
    }
    return Step.read(List.of(), hold, reading());
  }

  private Step afterHoldingRead(List<Envelope> rows, Map<String, BlockedGroups.Heads> heads) {
    holdingReads++;
    List<String> orphaned = BlockedGroups.orphaned(heads);
    if (!orphaned.isEmpty()) {
      return Step.done(
          orphaned, List.of(), new ReadBatch(List.of(), new ReadStart(0, repairs), true));
    }
    BlockedGroups.Split split = BlockedGroups.split(rows, BlockedGroups.blockedFrom(heads));
    if (!split.free().isEmpty()) {
      return Step.done(
          List.of(), split.hold(), new ReadBatch(split.free(), new ReadStart(next, repairs), true));
    }
    if (rows.size() < batchSize) {
      return Step.done(
          List.of(), split.hold(), new ReadBatch(List.of(), new ReadStart(from, repairs), false));
    }
    next = rows.get(rows.size() - 1).id() + 1;
    if (holdingReads == HELD_READS_PER_TRANSACTION || woken.getAsBoolean()) {
      // Not urgent: the holding goes on at the worker's next run, whose first read is from where
      // the reading started, to the rows published meanwhile.
      return Step.done(
          List.of(),
          split.hold(),
          new ReadBatch(List.of(), new ReadStart(from, repairs, next), false));
    }
    return Step.read(List.of(), split.hold(), holdingRead());
  }

  /** Where the reading phase starts its next read, and the rows it read past. */
  private ReadStart start() {
    return new ReadStart(from, repairs, unheld);
  }

  /** Where the next read starts without group ordering, which reads nothing past. */
  private ReadStart unordered() {
    return new ReadStart(from, repairs);
  }

  private Read reading() {
    return new Read(
        from,
        readPast.isEmpty() ? Set.of() : Collections.unmodifiableSet(new LinkedHashSet<>(readPast)),
        ordering == Ordering.GROUP);
  }

  private Read holdingRead() {
    return new Read(next, Set.of(), true);
  }
}
