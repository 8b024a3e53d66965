package io.outboxer.it.delivery;

import static io.outboxer.it.support.LeasedOutbox.HOURLY_RETRIES;
import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.internal.rules.BatchOutcome;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.internal.rules.ReadBatch;
import io.outboxer.internal.rules.ReadStart;
import io.outboxer.internal.rules.SharedTerms;
import io.outboxer.internal.store.AdminStore;
import io.outboxer.internal.store.Dialect;
import io.outboxer.internal.store.Lease;
import io.outboxer.internal.store.LeaseStore;
import io.outboxer.internal.store.MessageStore;
import io.outboxer.internal.store.RowState;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.LeasedOutbox;
import io.outboxer.it.support.MessageRows;
import io.outboxer.it.support.Sql;
import io.outboxer.it.support.TableReads;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store as a worker uses it, on an outbox no engine delivers: the test holds its lease. Shows
 * that a batch's cost does not grow with the backlog, the blocked groups or the rows deleted while
 * a transaction stays open, that a repair below where reads start is read in order, and that a
 * changed partition count is refused while rows remain.
 */
@ExtendWith(ArquillianExtension.class)
class SelectionIT {

  /** No wake-up arrives during the reads of these tests. */
  private static final BooleanSupplier NOT_WOKEN = () -> false;

  private static final int BLOCKED = 100_000;
  private static final int OTHERS = 100_000;

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(SelectionIT.class);
  }

  @Inject MessageStore store;

  @Inject LeaseStore leases;

  @Inject TableReads tableReads;

  @Inject UserTransaction tx;

  @Inject AdminStore admin;

  @Test
  void aBatchReadsOnlyReadyRowsWhateverTheBacklogBehindABlockedGroup() throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-scan-", "selection-test");
    String outbox = leased.name();
    Lease lease = leased.lease();
    String blocked = outbox + "-blocked";
    insertBacklog(outbox, blocked);
    assertThat(Sql.number("select count(*) from outboxer_message where outbox = ?", outbox))
        .isEqualTo(BLOCKED + OTHERS);

    // The head of the blocked group fails: its completion writes the head alone.
    List<Envelope> first =
        store
            .nextBatch(lease, Ordering.GROUP, 100, true, ReadStart.FIRST_ROW, NOT_WOKEN)
            .orElseThrow()
            .envelopes();
    assertThat(first).hasSize(100).allMatch(e -> blocked.equals(e.groupKey()));
    long head = first.get(0).id();
    failHead(lease, first, head);
    assertThat(held(outbox)).isZero();

    ReadBatch read =
        store.nextBatch(lease, Ordering.GROUP, 100, true, ReadStart.FIRST_ROW, NOT_WOKEN).get();
    if (postgres()) {
      // Where reads start past their last batch, the read reads past the group's rows in one
      // statement, holding none, to the rows behind them (ADR 0016).
      assertThat(read.envelopes())
          .extracting(Envelope::id)
          .containsExactlyElementsOf(
              LongStream.range(head + BLOCKED, head + BLOCKED + 100).boxed().toList());
      assertThat(read.start().unheld()).isEqualTo(head + 1);
      assertThat(held(outbox)).isZero();
      // They are held by the reads that find nothing else ready (the next test shows when). As a
      // test of the store: holding reads that start at the group's first row, while the rows
      // behind it are still there, hold ten reads' worth per transaction until they meet them.
      long end = Sql.number("select max(id) from outboxer_message where outbox = ?", outbox) + 1;
      read =
          store
              .nextBatch(
                  lease,
                  Ordering.GROUP,
                  100,
                  true,
                  new ReadStart(end, read.start().repairs(), head + 1),
                  NOT_WOKEN)
              .orElseThrow();
    }

    // The reads hold the group's rows as they meet them, ten batches per transaction at most,
    // each read starting past what the one before held (on PostgreSQL; SQLite's index keeps no
    // entries of the rows' earlier state), until one finds a row it may deliver.
    assertThat(read.envelopes()).isEmpty();
    if (postgres()) {
      assertThat(read.full()).as("the holding goes on at the worker's next run").isFalse();
      assertThat(read.start().unheld()).isEqualTo(head + 1001);
    } else {
      assertThat(read.full()).as("an empty batch that asks to be read on").isTrue();
    }
    assertThat(held(outbox)).as("held by one read").isEqualTo(1000);
    int reads = 1;
    while (read.envelopes().isEmpty()) {
      read =
          store.nextBatch(lease, Ordering.GROUP, 100, true, read.start(), NOT_WOKEN).orElseThrow();
      reads++;
    }
    assertThat(reads).isEqualTo(100);
    assertThat(held(outbox)).isEqualTo(BLOCKED - 1);
    assertThat(read.envelopes()).extracting(Envelope::id).containsExactly(head + BLOCKED);

    // The first scan after the flagging meets the held rows' old entries in the ready index once
    // (PostgreSQL marks them dead as it passes); every later batch reads the next ready rows only.
    long firstOther = head + BLOCKED;
    assertThat(
            store
                .nextBatch(lease, Ordering.GROUP, 100, true, ReadStart.FIRST_ROW, NOT_WOKEN)
                .orElseThrow()
                .envelopes())
        .extracting(Envelope::id)
        .first()
        .isEqualTo(firstOther);
    tx.begin();
    long[] before = tableReads();
    List<Envelope> batch =
        store
            .nextBatch(lease, Ordering.GROUP, 100, true, ReadStart.FIRST_ROW, NOT_WOKEN)
            .orElseThrow()
            .envelopes();
    long[] after = tableReads();
    tx.commit();

    assertThat(batch).hasSize(100);
    assertThat(batch).extracting(Envelope::id).isSorted().first().isEqualTo(firstOther);
    assertThat(batch).noneMatch(e -> blocked.equals(e.groupKey()));
    if (before != null) {
      assertThat(after[0] - before[0]).as("rows read by sequential scans").isZero();
      assertThat(after[1] - before[1]).as("rows fetched through indexes").isLessThanOrEqualTo(300);
    } else {
      assertThat(sqlitePlan())
          .as("SQLite's plan for the ready scan")
          .contains("USING INDEX outboxer_message_scan")
          .doesNotContain("TEMP B-TREE");
    }

    Sql.update("delete from outboxer_message where outbox = ?", outbox);
  }

  /**
   * Where reads start past their last batch (PostgreSQL, ADR 0016), the rows behind a blocked group
   * go out before the group's rows are held: a read whose rows are all blocked reads past them,
   * leaving them ready; a head due again meanwhile goes out before them, in order; a read that
   * finds nothing else ready holds ten reads' worth of them, one such transaction per run of the
   * worker, which a wake-up for the partition ends after the read under way; and rows published
   * meanwhile go out before the rest is held. The rows behind the group are ungrouped: the
   * statement that reads past the group keeps them. Where reads start at the first row (SQLite),
   * the reads hold the rows as they meet them, first.
   */
  @Test
  void theRowsBehindABlockedGroupGoOutBeforeTheGroupsRowsAreHeld() throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-past-", "selection-test");
    String outbox = leased.name();
    Lease lease = leased.lease();
    long head = leased.insert("a");
    MessageRows.insertMany(outbox, "a", 2500);
    MessageRows.insertMany(outbox, null, 150);
    List<Long> others = idsOf(outbox, null);
    ReadBatch first =
        store
            .nextBatch(lease, Ordering.GROUP, 100, true, ReadStart.FIRST_ROW, NOT_WOKEN)
            .orElseThrow();
    assertThat(first.envelopes().get(0).id()).isEqualTo(head);
    failHead(lease, first.envelopes(), head);

    ReadBatch read =
        store
            .nextBatch(lease, Ordering.GROUP, 100, true, first.start().fromFirstRow(), NOT_WOKEN)
            .get();
    if (!postgres()) {
      read = readOnUntilRows(lease, read);
      assertThat(held(outbox)).isEqualTo(2500);
      assertThat(read.envelopes())
          .extracting(Envelope::id)
          .containsExactlyElementsOf(others.subList(0, 100));
      Sql.update("delete from outboxer_message where outbox = ?", outbox);
      return;
    }
    assertThat(read.envelopes())
        .extracting(Envelope::id)
        .containsExactlyElementsOf(others.subList(0, 100));
    assertThat(held(outbox)).isZero();
    ReadStart start = confirm(lease, read);

    // The head comes due: read from the first row, it goes out with the rows of its group behind
    // it, in order, and fails again.
    Sql.update("update outboxer_message set next_attempt_at = 0 where id = ?", head);
    read = store.nextBatch(lease, Ordering.GROUP, 100, true, start, NOT_WOKEN).orElseThrow();
    assertThat(read.envelopes())
        .extracting(Envelope::id)
        .containsExactlyElementsOf(LongStream.range(head, head + 100).boxed().toList());
    failHead(lease, read.envelopes(), head);

    read =
        store
            .nextBatch(lease, Ordering.GROUP, 100, true, read.start().fromFirstRow(), NOT_WOKEN)
            .get();
    assertThat(read.envelopes())
        .extracting(Envelope::id)
        .containsExactlyElementsOf(others.subList(100, 150));
    assertThat(read.full()).isFalse();
    assertThat(held(outbox)).isZero();
    start = confirm(lease, read);

    // Nothing else is ready: a transaction holds ten reads' worth, and the holding goes on at the
    // worker's next run.
    read = store.nextBatch(lease, Ordering.GROUP, 100, true, start, NOT_WOKEN).orElseThrow();
    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isFalse();
    assertThat(held(outbox)).isEqualTo(1000);
    assertThat(read.start().unheld()).isEqualTo(head + 1001);

    // Rows published meanwhile go out before the rest is held.
    MessageRows.insertMany(outbox, "c", 30);
    read = store.nextBatch(lease, Ordering.GROUP, 100, true, read.start(), NOT_WOKEN).orElseThrow();
    assertThat(read.envelopes())
        .extracting(Envelope::id)
        .containsExactlyElementsOf(idsOf(outbox, "c"));
    assertThat(held(outbox)).isEqualTo(1000);
    start = confirm(lease, read);

    // A wake-up for the partition ends the holding after the read under way: the rows it may
    // announce are read first, at the worker's next run.
    read = store.nextBatch(lease, Ordering.GROUP, 100, true, start, () -> true).orElseThrow();
    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isFalse();
    assertThat(held(outbox)).isEqualTo(1100);
    assertThat(read.start().unheld()).isEqualTo(head + 1101);

    read = store.nextBatch(lease, Ordering.GROUP, 100, true, read.start(), NOT_WOKEN).get();
    assertThat(read.envelopes()).isEmpty();
    assertThat(held(outbox)).isEqualTo(2100);
    read = store.nextBatch(lease, Ordering.GROUP, 100, true, read.start(), NOT_WOKEN).orElseThrow();
    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isFalse();
    assertThat(held(outbox)).isEqualTo(2500);
    assertThat(read.start().unheld()).isZero();
    Sql.update("delete from outboxer_message where outbox = ?", outbox);
  }

  /**
   * Reads go past the rows of a few blocked groups only (ADR 0016): the statement that leaves them
   * out compares each row it passes with each group. A read whose blocked rows belong to more
   * groups holds them as it meets them.
   */
  @Test
  void aReadOfTheRowsOfManyBlockedGroupsHoldsThem() throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-many-", "selection-test");
    String outbox = leased.name();
    Lease lease = leased.lease();
    List<Long> heads = new ArrayList<>();
    for (int g = 0; g < 20; g++) {
      heads.add(leased.insert("g" + g));
    }
    for (int i = 0; i < 100; i++) {
      leased.insert("g" + (i % 20));
    }
    long other = leased.insert("z");
    ReadBatch first =
        store
            .nextBatch(lease, Ordering.GROUP, 20, true, ReadStart.FIRST_ROW, NOT_WOKEN)
            .orElseThrow();
    assertThat(first.envelopes()).hasSize(20);
    failHeads(lease, first.envelopes(), heads);

    ReadBatch read =
        store
            .nextBatch(lease, Ordering.GROUP, 100, true, first.start().fromFirstRow(), NOT_WOKEN)
            .get();

    assertThat(read.envelopes()).extracting(Envelope::id).containsExactly(other);
    assertThat(held(outbox)).isEqualTo(100);
    assertThat(read.start().unheld()).isZero();
    Sql.update("delete from outboxer_message where outbox = ?", outbox);
  }

  /**
   * A read past the rows of several blocked groups (PostgreSQL, ADR 0016) leaves them all out of
   * the reads after it in one statement, and the rows behind them go out first. A head that comes
   * due meanwhile sends the next read back to the first row: the head goes out with the rows of its
   * group that follow, in order, and the rows of the other groups met on the way are held. Where
   * reads start at the first row (SQLite), the reads hold the rows as they meet them, first.
   */
  @Test
  void aReadPastSeveralBlockedGroupsLeavesThemAllOutUntilAHeadComesDue() throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-several-", "selection-test");
    String outbox = leased.name();
    Lease lease = leased.lease();
    List<Long> heads = new ArrayList<>();
    for (String group : List.of("a", "b", "c")) {
      heads.add(leased.insert(group));
    }
    MessageRows.insertGroupedBy(
        outbox, "case g % 3 when 0 then 'a' when 1 then 'b' else 'c' end", 900);
    MessageRows.insertMany(outbox, "z", 50);
    List<Long> behind = idsOf(outbox, "z");
    ReadBatch first =
        store
            .nextBatch(lease, Ordering.GROUP, 3, true, ReadStart.FIRST_ROW, NOT_WOKEN)
            .orElseThrow();
    assertThat(first.envelopes()).extracting(Envelope::id).containsExactlyElementsOf(heads);
    failHeads(lease, first.envelopes(), heads);

    ReadBatch read =
        store
            .nextBatch(lease, Ordering.GROUP, 100, true, first.start().fromFirstRow(), NOT_WOKEN)
            .orElseThrow();
    if (!postgres()) {
      read = readOnUntilRows(lease, read);
      assertThat(held(outbox)).isEqualTo(900);
      assertThat(read.envelopes()).extracting(Envelope::id).containsExactlyElementsOf(behind);
      Sql.update("delete from outboxer_message where outbox = ?", outbox);
      return;
    }
    assertThat(read.envelopes()).extracting(Envelope::id).containsExactlyElementsOf(behind);
    assertThat(held(outbox)).isZero();
    assertThat(read.start().unheld()).isEqualTo(heads.get(2) + 1);
    ReadStart start = confirm(lease, read);

    // b's head comes due: the next read starts at the first row, where the head and b's rows
    // among the first hundred go out, in order, and a's and c's are held.
    List<Long> firstRows =
        Sql.query(
                "select id from outboxer_message where outbox = ? and id > ? order by id limit 99",
                outbox,
                heads.get(2))
            .stream()
            .map(row -> ((Number) row[0]).longValue())
            .toList();
    List<Long> ofB = idsOf(outbox, "b").stream().filter(id -> id <= firstRows.get(98)).toList();
    Sql.update("update outboxer_message set next_attempt_at = 0 where id = ?", heads.get(1));
    read = store.nextBatch(lease, Ordering.GROUP, 100, true, start, NOT_WOKEN).orElseThrow();
    assertThat(read.envelopes()).extracting(Envelope::id).containsExactlyElementsOf(ofB);
    assertThat(ofB).hasSize(34).startsWith(heads.get(1));
    assertThat(held(outbox)).isEqualTo(99 - 33);
    assertThat(read.start().unheld()).isZero();
    Sql.update("delete from outboxer_message where outbox = ?", outbox);
  }

  /**
   * Where reads start at the first row (SQLite), a read that held rows as it met them ends with an
   * empty batch that asks to be read on: the worker's reads from {@code read} on, until one has
   * rows.
   */
  private ReadBatch readOnUntilRows(Lease lease, ReadBatch read) {
    while (read.envelopes().isEmpty()) {
      read =
          store.nextBatch(lease, Ordering.GROUP, 100, true, read.start(), NOT_WOKEN).orElseThrow();
    }
    return read;
  }

  /** The ids of {@code group}'s rows (null: the ungrouped rows), in order. */
  private static List<Long> idsOf(String outbox, String group) {
    return (group == null
            ? Sql.query(
                "select id from outboxer_message where outbox = ? and group_key is null order by id",
                outbox)
            : Sql.query(
                "select id from outboxer_message where outbox = ? and group_key = ? order by id",
                outbox,
                group))
        .stream().map(row -> ((Number) row[0]).longValue()).toList();
  }

  /** Records {@code batch}'s delivery with its {@code head} refused, retried in an hour. */
  private void failHead(Lease lease, List<Envelope> batch, long head) {
    failHeads(lease, batch, List.of(head));
  }

  /** Records {@code batch}'s delivery with its {@code heads} refused, retried in an hour. */
  private void failHeads(Lease lease, List<Envelope> batch, List<Long> heads) {
    DeliveryReport.Builder report = DeliveryReport.builder();
    heads.forEach(head -> report.failed(head, "refused"));
    assertThat(
            store.complete(
                lease, HOURLY_RETRIES.complete(BatchOutcome.decide(batch, report.build()))))
        .isTrue();
  }

  /** Confirms all of {@code read}: where the worker's next read starts. */
  private ReadStart confirm(Lease lease, ReadBatch read) {
    DeliveryReport.Builder report = DeliveryReport.builder();
    read.envelopes().forEach(e -> report.confirmed(e.id()));
    assertThat(
            store.complete(
                lease,
                HOURLY_RETRIES.complete(BatchOutcome.decide(read.envelopes(), report.build()))))
        .isTrue();
    return read.start().past(read.envelopes().get(read.envelopes().size() - 1).id());
  }

  /**
   * A worker's reads start past its last batch whose rows were all deleted (ADR 0014). A discard of
   * a failing head makes the rows held behind it ready below that start, and raises the partition's
   * repair count: the next read starts from the first row, so the released row goes before the row
   * of its group published after it.
   */
  @Test
  void aRowThatARepairMadeReadyBelowWhereReadsStartGoesBeforeTheNewerRowsOfItsGroup()
      throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-start-", "selection-test");
    String outbox = leased.name();
    Lease lease = leased.lease();
    long a1 = leased.insert("a");
    long b1 = leased.insert("b");
    ReadBatch first =
        store
            .nextBatch(lease, Ordering.GROUP, 10, true, ReadStart.FIRST_ROW, NOT_WOKEN)
            .orElseThrow();
    assertThat(first.envelopes()).extracting(Envelope::id).containsExactly(a1, b1);
    DeliveryReport refused = DeliveryReport.builder().failed(a1, "refused").confirmed(b1).build();
    assertThat(
            store.complete(
                lease, HOURLY_RETRIES.complete(BatchOutcome.decide(first.envelopes(), refused))))
        .isTrue();

    long a2 = leased.insert("a");
    long b2 = leased.insert("b");
    ReadBatch second =
        store
            .nextBatch(lease, Ordering.GROUP, 10, true, first.start().fromFirstRow(), NOT_WOKEN)
            .orElseThrow();
    assertThat(second.envelopes())
        .as("a2 held behind a1")
        .extracting(Envelope::id)
        .containsExactly(b2);
    DeliveryReport confirmed = DeliveryReport.builder().confirmed(b2).build();
    assertThat(
            store.complete(
                lease, HOURLY_RETRIES.complete(BatchOutcome.decide(second.envelopes(), confirmed))))
        .isTrue();
    ReadStart past = second.start().past(b2);

    tx.begin();
    admin.discard(admin.findForRepair(outbox, a1).orElseThrow(), true);
    tx.commit();
    long a3 = leased.insert("a");

    assertThat(
            store
                .nextBatch(lease, Ordering.GROUP, 10, true, past, NOT_WOKEN)
                .orElseThrow()
                .envelopes())
        .extracting(Envelope::id)
        .containsExactly(a2, a3);
    Sql.update("delete from outboxer_message where outbox = ?", outbox);
  }

  /**
   * Where reads do not wait for writers (wait-for-writers=false, serialize-writes), a lower id can
   * commit after a higher one was read: a read that only held rows reads on from the first row, not
   * from past the rows it held, so that a writer that committed meanwhile is not read past.
   */
  @Test
  void aReadThatDoesNotWaitForWritersReadsOnFromTheFirstRowAfterHoldingRows() throws Exception {
    LeasedOutbox leased = LeasedOutbox.take(leases, "it-unbounded-", "selection-test");
    String outbox = leased.name();
    Lease lease = leased.lease();
    long head = leased.insert("a");
    MessageRows.insertMany(outbox, "a", 1000);
    List<Envelope> first =
        store
            .nextBatch(lease, Ordering.GROUP, 100, false, ReadStart.FIRST_ROW, NOT_WOKEN)
            .orElseThrow()
            .envelopes();
    assertThat(first.get(0).id()).isEqualTo(head);
    failHead(lease, first, head);

    ReadBatch read =
        store
            .nextBatch(lease, Ordering.GROUP, 100, false, ReadStart.FIRST_ROW, NOT_WOKEN)
            .orElseThrow();

    assertThat(read.envelopes()).isEmpty();
    assertThat(read.full()).isTrue();
    assertThat(held(outbox)).isEqualTo(1000);
    assertThat(read.start().id()).as("where the next read starts: the first row").isZero();
    Sql.update("delete from outboxer_message where outbox = ?", outbox);
  }

  /**
   * The terms recorded beside the outbox's name: a changed partition count is refused while the
   * outbox holds rows hashed over the old one, and any changed term while another server delivers
   * the outbox (its heartbeat within the lease ttl); with neither, the record takes the new terms.
   */
  @Test
  void anOutboxsTermsChangeOnlyWhereNoOtherServerDeliversItAndItsCountOnlyWhenItIsEmpty() {
    String outbox = "it-resize-" + UUID.randomUUID().toString().substring(0, 8);
    SharedTerms four = SharedTerms.of(4, Ordering.GROUP, true, false);
    assertThat(record(outbox, four)).isEmpty();
    Sql.update(
        "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload)"
            + " values (?, 3, 'g', 'T', '{}')",
        outbox);

    assertThat(record(outbox, SharedTerms.of(8, Ordering.GROUP, true, false)))
        .contains(
            "OUTBOXER-1101 outbox '"
                + outbox
                + "' holds 1 messages hashed over 4 partitions, but outboxer.outbox."
                + outbox
                + ".partitions is now 8: its workers do not start until the change is undone or"
                + " the outbox is drained (pending and dead messages delivered or discarded)");
    assertThat(record(outbox, four)).as("the recorded terms still work").isEmpty();
    Sql.update("delete from outboxer_message where outbox = ?", outbox);

    Sql.update(
        "insert into outboxer_node (outbox, node_id, heartbeat_at) values (?, 'other-server', ?)",
        outbox,
        System.currentTimeMillis());
    assertThat(record(outbox, SharedTerms.of(4, Ordering.TOTAL, true, false)))
        .hasValueSatisfying(
            refusal ->
                assertThat(refusal)
                    .startsWith("OUTBOXER-1104 outbox '" + outbox + "' is delivered by 1 other")
                    .contains(
                        "outboxer.outbox." + outbox + ".ordering is total here, group there"));
    assertThat(record(outbox, SharedTerms.of(8, Ordering.GROUP, true, false)))
        .as("a new count while another server delivers, though the outbox is empty")
        .hasValueSatisfying(refusal -> assertThat(refusal).startsWith("OUTBOXER-1104"));
    assertThat(record(outbox, four)).as("the other server's terms").isEmpty();

    Sql.update("delete from outboxer_node where outbox = ?", outbox);
    SharedTerms total = SharedTerms.of(8, Ordering.TOTAL, false, false);
    assertThat(record(outbox, total)).as("no other server delivers it").isEmpty();
    assertThat(
            Sql.query("select partitions, terms from outboxer_outbox where name = ?", outbox)
                .get(0))
        .containsExactly(8, "ordering=total,wait-for-writers=false,serialize-writes=false");
  }

  private Optional<String> record(String outbox, SharedTerms terms) {
    return leases.recordOutbox(outbox, terms, "this-server", Duration.ofSeconds(30), true);
  }

  /** {@link #BLOCKED} messages of {@code blocked}, then {@link #OTHERS} of 1,000 other groups. */
  private static void insertBacklog(String outbox, String blocked) {
    MessageRows.insertGroupedBy(
        outbox,
        "case when g <= "
            + BLOCKED
            + " then '"
            + blocked
            + "' else '"
            + outbox
            + "-g' || (g % 1000) end",
        BLOCKED + OTHERS);
  }

  private static boolean postgres() {
    return Sql.database().equals("postgresql");
  }

  private static long held(String outbox) {
    return Sql.number(
        "select count(*) from outboxer_message where outbox = ? and state = "
            + RowState.HELD.code(),
        outbox);
  }

  private long[] tableReads() {
    return Sql.database().equals("postgresql") ? tableReads.now() : null;
  }

  /** SQLite's plan for the store's own statement that reads ready rows. */
  private static String sqlitePlan() {
    String readReady =
        Dialect.SQLITE
            .sql(io.outboxer.internal.store.Sql.READ_READY)
            .replace(":outbox", "'x'")
            .replace(":partition", "0")
            .replace(":limit", "100");
    StringBuilder plan = new StringBuilder();
    for (Object[] row : Sql.query("explain query plan " + readReady)) {
      plan.append(row[row.length - 1]).append('\n');
    }
    return plan.toString();
  }
}
