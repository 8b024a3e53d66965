package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.internal.store.RowState;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The batch selection's rules on a partition's rows in memory: every case that SelectionIT shows on
 * the databases, and the ones only a unit test reaches. Reads that wait for writers (ADR 0010,
 * PostgreSQL by default) may start past rows they know of; the others start at the partition's
 * first ready row (SQLite, or wait-for-writers=false).
 */
class BatchSelectionTest {

  private static final BooleanSupplier NOT_WOKEN = () -> false;
  private static final RetryPolicy HOURLY_RETRIES =
      new RetryPolicy(Ordering.GROUP, 0, Duration.ofHours(1), Duration.ofHours(1));

  private final RowTable table = new RowTable();

  private ReadBatch read(int batchSize, ReadStart start) {
    return table.read(Ordering.GROUP, batchSize, true, start, NOT_WOKEN);
  }

  private ReadBatch readNotWaiting(int batchSize, ReadStart start) {
    return table.read(Ordering.GROUP, batchSize, false, start, NOT_WOKEN);
  }

  /** Records {@code read}'s delivery with {@code heads} refused, retried in an hour. */
  private void failHeads(ReadBatch read, Long... heads) {
    DeliveryReport.Builder report = DeliveryReport.builder();
    for (long head : heads) {
      report.failed(head, "refused");
    }
    table.complete(HOURLY_RETRIES.complete(BatchOutcome.decide(read.envelopes(), report.build())));
  }

  /** Confirms all of {@code read}: where the worker's next read starts. */
  private ReadStart confirm(ReadBatch read) {
    DeliveryReport.Builder report = DeliveryReport.builder();
    read.envelopes().forEach(e -> report.confirmed(e.id()));
    Completion completion =
        HOURLY_RETRIES.complete(BatchOutcome.decide(read.envelopes(), report.build()));
    table.complete(completion);
    return read.startAfter(completion);
  }

  /**
   * The heads of groups g0 to g19 (ids 1 to 20) read and failed, {@code behind} rows of theirs
   * after them in turn, then one row of group z.
   *
   * @return the read of the heads
   */
  private ReadBatch twentyFailingGroups(int behind) {
    for (long id = 1; id <= 20; id++) {
      table.add(id, "g" + (id - 1));
    }
    for (long id = 21; id <= 20 + behind; id++) {
      table.add(id, "g" + ((id - 21) % 20));
    }
    table.add(21L + behind, "z");
    ReadBatch heads = read(20, ReadStart.FIRST_ROW);
    failHeads(heads, range(1, 20).toArray(Long[]::new));
    return heads;
  }

  private static List<Long> ids(ReadBatch read) {
    return read.envelopes().stream().map(Envelope::id).toList();
  }

  private static List<Long> range(long from, long to) {
    return LongStream.rangeClosed(from, to).boxed().toList();
  }

  private int held() {
    return table.ids(RowState.HELD).size();
  }

  @Test
  void
      readsThatWaitForWritersGoPastABlockedGroupsBacklogToTheRowsBehindItThenHoldItTenReadsPerTransaction() {
    table.add(1, 2500, "blocked");
    for (long id = 2501; id <= 2700; id++) {
      table.add(id, "g" + (id % 100));
    }
    ReadBatch first = read(100, ReadStart.FIRST_ROW);
    assertThat(ids(first)).isEqualTo(range(1, 100));
    failHeads(first, 1L);
    assertThat(held()).as("the completion writes the head alone").isZero();

    ReadBatch read = read(100, ReadStart.FIRST_ROW);
    assertThat(ids(read)).isEqualTo(range(2501, 2600));
    assertThat(read.start().unheld()).as("where the rows read past start").isEqualTo(2);
    assertThat(held()).isZero();
    assertThat(table.reads)
        .extracting(BatchSelection.Read::leaveOut)
        .as("the second read of the transaction leaves the blocked group out")
        .endsWith(Set.of(), Set.of("blocked"));

    // Holding reads that start past every row hold ten reads' worth per transaction.
    read = read(100, new ReadStart(2701, read.start().repairs(), 2));
    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).as("the holding goes on at the worker's next run").isFalse();
    assertThat(read.start().unheld()).isEqualTo(1002);
    assertThat(held()).isEqualTo(1000);
    int calls = 1;
    while (read.envelopes().isEmpty()) {
      read = read(100, read.start());
      calls++;
    }
    assertThat(calls).isEqualTo(3);
    assertThat(held()).isEqualTo(2499);
    assertThat(ids(read)).containsExactly(2501L);
    assertThat(ids(read(100, ReadStart.FIRST_ROW))).first().isEqualTo(2501L);
  }

  @Test
  void readsThatDoNotWaitForWritersHoldABlockedGroupsBacklogAsTheyMeetItAndAskToBeReadOn() {
    table.add(1, 2500, "blocked");
    table.add(2501, 2700, null);
    failHeads(readNotWaiting(100, ReadStart.FIRST_ROW), 1L);

    ReadBatch read = readNotWaiting(100, ReadStart.FIRST_ROW);
    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).as("an empty batch that asks to be read on").isTrue();
    assertThat(held()).as("held by one transaction").isEqualTo(1000);
    assertThat(read.start().id()).as("the next read starts at the first row").isZero();
    assertThat(table.reads).extracting(BatchSelection.Read::from).containsOnly(0L);
    int calls = 1;
    while (read.envelopes().isEmpty()) {
      read = readNotWaiting(100, read.start());
      calls++;
    }
    assertThat(calls).isEqualTo(3);
    assertThat(held()).isEqualTo(2499);
    assertThat(ids(read)).containsExactly(2501L);
  }

  @Test
  void theRowsBehindABlockedGroupGoOutBeforeTheGroupsRowsAreHeld() {
    table.add(1, 2501, "a");
    table.add(2502, 2651, null);
    ReadBatch first = read(100, ReadStart.FIRST_ROW);
    failHeads(first, 1L);

    ReadBatch read = read(100, first.start().fromFirstRow());
    assertThat(ids(read)).isEqualTo(range(2502, 2601));
    assertThat(held()).isZero();
    ReadStart start = confirm(read);

    // The head comes due: read from the first row, it goes out with the rows of its group behind
    // it, in order, and fails again.
    table.comeDue(1);
    read = read(100, start);
    assertThat(ids(read)).isEqualTo(range(1, 100));
    failHeads(read, 1L);

    read = read(100, read.start().fromFirstRow());
    assertThat(ids(read)).isEqualTo(range(2602, 2651));
    assertThat(read.full()).isFalse();
    assertThat(held()).isZero();
    start = confirm(read);

    // Nothing else is ready: a transaction holds ten reads' worth; the holding goes on at the
    // worker's next run.
    read = read(100, start);
    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isFalse();
    assertThat(held()).isEqualTo(1000);
    assertThat(read.start().unheld()).isEqualTo(1002);

    // Rows published meanwhile go out before the rest is held.
    table.add(2652, 2681, "c");
    read = read(100, read.start());
    assertThat(ids(read)).isEqualTo(range(2652, 2681));
    assertThat(held()).isEqualTo(1000);
    start = confirm(read);

    // A wake-up ends the holding after the read under way, never before the first.
    read = table.read(Ordering.GROUP, 100, true, start, () -> true);
    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isFalse();
    assertThat(held()).isEqualTo(1100);
    assertThat(read.start().unheld()).isEqualTo(1102);

    read = read(100, read.start());
    assertThat(held()).isEqualTo(2100);
    read = read(100, read.start());
    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isFalse();
    assertThat(held()).isEqualTo(2500);
    assertThat(read.start().unheld()).as("nothing left to hold").isZero();
  }

  @Test
  void readsThatDoNotWaitForWritersHoldTheGroupsRowsBeforeTheRowsBehindThemGoOut() {
    table.add(1, 2501, "a");
    table.add(2502, 2651, null);
    ReadBatch read = readNotWaiting(100, ReadStart.FIRST_ROW);
    failHeads(read, 1L);

    read = readNotWaiting(100, read.start().fromFirstRow());
    while (read.envelopes().isEmpty()) {
      assertThat(read.full()).isTrue();
      read = readNotWaiting(100, read.start());
    }

    assertThat(held()).isEqualTo(2500);
    assertThat(ids(read)).isEqualTo(range(2502, 2601));
  }

  @Test
  void aReadOfTheRowsOfManyBlockedGroupsHoldsThem() {
    ReadBatch first = twentyFailingGroups(100);
    assertThat(ids(first)).isEqualTo(range(1, 20));

    ReadBatch read = read(100, first.start().fromFirstRow());

    assertThat(ids(read)).containsExactly(121L);
    assertThat(held()).as("more groups than a read leaves out").isEqualTo(100);
    assertThat(read.start().unheld()).isZero();
  }

  @Test
  void aReadPastSeveralBlockedGroupsLeavesThemAllOutUntilAHeadComesDue() {
    table.add(1, "a");
    table.add(2, "b");
    table.add(3, "c");
    for (long id = 4; id <= 903; id++) {
      table.add(id, List.of("a", "b", "c").get((int) ((id - 3) % 3)));
    }
    table.add(904, 953, "z");
    ReadBatch first = read(3, ReadStart.FIRST_ROW);
    assertThat(ids(first)).containsExactly(1L, 2L, 3L);
    failHeads(first, 1L, 2L, 3L);

    ReadBatch read = read(100, first.start().fromFirstRow());
    assertThat(ids(read)).isEqualTo(range(904, 953));
    assertThat(held()).isZero();
    assertThat(read.start().unheld()).isEqualTo(4);
    ReadStart start = confirm(read);

    // b's head comes due: the next read starts at the first row, where the head and b's rows among
    // the first hundred go out, in order, and a's and c's are held.
    table.comeDue(2);
    read = read(100, start);
    List<Long> ofB = table.idsOf("b").stream().filter(id -> id <= 102).toList();
    assertThat(ofB).hasSize(34).startsWith(2L);
    assertThat(ids(read)).isEqualTo(ofB);
    assertThat(held()).isEqualTo(99 - 33);
    assertThat(read.start().unheld()).isZero();
  }

  @Test
  void aRowThatARepairMadeReadyBelowWhereReadsStartGoesBeforeTheNewerRowsOfItsGroup() {
    table.add(1, "a");
    table.add(2, "b");
    ReadBatch first = read(10, ReadStart.FIRST_ROW);
    assertThat(ids(first)).containsExactly(1L, 2L);
    DeliveryReport refused = DeliveryReport.builder().failed(1, "refused").confirmed(2).build();
    table.complete(HOURLY_RETRIES.complete(BatchOutcome.decide(first.envelopes(), refused)));
    table.add(3, "a");
    table.add(4, "b");
    ReadBatch second = read(10, first.start().fromFirstRow());
    assertThat(ids(second)).as("3 held behind 1").containsExactly(4L);
    ReadStart past = confirm(second);
    assertThat(past.id()).isEqualTo(5);

    table.discard(1);
    table.add(5, "a");

    assertThat(ids(read(10, past))).containsExactly(3L, 5L);
  }

  @Test
  void aReadThatDoesNotWaitForWritersAndOnlyHeldRowsReadsOnFromTheFirstRow() {
    table.add(1, 1001, "a");
    failHeads(readNotWaiting(100, ReadStart.FIRST_ROW), 1L);

    ReadBatch read = readNotWaiting(100, ReadStart.FIRST_ROW);

    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isTrue();
    assertThat(held()).isEqualTo(1000);
    assertThat(read.start().id()).as("where the next read starts: the first row").isZero();
  }

  @Test
  void aReadThatWaitsForWritersAndHeldRowsOfTooManyGroupsTenTimesEndsItsTransactionPastThem() {
    twentyFailingGroups(2000);

    ReadBatch read = read(100, ReadStart.FIRST_ROW);

    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).as("an empty batch that asks to be read on").isTrue();
    assertThat(held()).isEqualTo(1000);
    assertThat(read.start().id()).as("past the rows it held").isEqualTo(1021);
    read = read(100, read.start());
    read = read(100, read.start());
    assertThat(ids(read)).containsExactly(2021L);
    assertThat(held()).isEqualTo(2000);
  }

  @Test
  void heldRowsWhoseGroupHasNoFailingHeadAreReleasedAndGoBeforeTheNewerRowsOfTheirGroup() {
    table.add(1, 5, "a");
    failHeads(read(1, ReadStart.FIRST_ROW), 1L);
    assertThat(read(10, ReadStart.FIRST_ROW).envelopes()).isEmpty();
    assertThat(held()).isEqualTo(4);
    table.rows.remove(1L); // the head went without releasing its group
    table.add(6, "a");

    ReadBatch read = read(10, new ReadStart(6, table.repairs));

    assertThat(ids(read)).isEqualTo(range(2, 6));
    assertThat(table.reads)
        .extracting(BatchSelection.Read::from)
        .as("the read that met the orphaned group read again from the first row")
        .endsWith(6L, 0L);
    assertThat(held()).isZero();
  }

  @Test
  void withTotalOrderingARetryingHeadStopsThePartitionBeforeAnyRead() {
    table.add(1, 3, "a");
    table.add(4, "b");
    ReadBatch first = table.read(Ordering.TOTAL, 10, true, ReadStart.FIRST_ROW, NOT_WOKEN);
    table.complete(
        new Completion(
            List.of(2L, 3L, 4L),
            List.of(),
            List.of(
                new Completion.Failure(
                    1, "a", "refused", Duration.ofHours(1), Completion.GroupEffect.NONE))));
    assertThat(ids(first)).isEqualTo(range(1, 4));
    table.add(5, "c");
    int reads = table.reads.size();

    ReadBatch read = table.read(Ordering.TOTAL, 10, true, ReadStart.FIRST_ROW, NOT_WOKEN);

    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isFalse();
    assertThat(table.reads).as("no read").hasSize(reads);
    table.comeDue(1);
    assertThat(ids(table.read(Ordering.TOTAL, 10, true, ReadStart.FIRST_ROW, NOT_WOKEN)))
        .containsExactly(1L, 5L);
  }

  @Test
  void withoutOrderingARetryingMessageHoldsNothingBack() {
    table.add(1, 4, "a");
    table.rows.get(1L).state = RowState.RETRYING;

    ReadBatch read = table.read(Ordering.NONE, 10, true, ReadStart.FIRST_ROW, NOT_WOKEN);

    assertThat(ids(read)).isEqualTo(range(2, 4));
    assertThat(held()).isZero();
  }

  @Test
  void aHeadThatCameDueSendsTheReadBackToTheFirstRow() {
    table.add(1, 4, "a");
    ReadBatch first = read(1, ReadStart.FIRST_ROW);
    failHeads(first, 1L);
    table.rows.remove(2L);
    table.rows.remove(3L);
    table.rows.remove(4L);
    table.add(5, "b");
    ReadStart past = confirm(read(10, ReadStart.FIRST_ROW));
    assertThat(past.id()).isEqualTo(6);

    table.comeDue(1);
    ReadBatch read = read(10, past);

    assertThat(ids(read)).containsExactly(1L);
    assertThat(table.reads).last().extracting(BatchSelection.Read::from).isEqualTo(0L);
  }

  @Test
  void aReadStartsPastTheLastBatchOnlyUnderTheRepairCountItWasTakenUnder() {
    table.add(1, 4, null);
    ReadStart past = confirm(read(2, ReadStart.FIRST_ROW));
    assertThat(past).isEqualTo(new ReadStart(3, 0));

    read(2, past);
    table.repairs++;
    read(2, past);
    readNotWaiting(2, past);

    assertThat(table.reads).extracting(BatchSelection.Read::from).containsExactly(0L, 3L, 0L, 0L);
  }
}
