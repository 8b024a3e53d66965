package io.outboxer.it.relays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.it.support.Bulk;
import io.outboxer.it.support.Sql;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * What every relay must do, written once; a subclass per relay ({@link JmsIT}, {@link KafkaIT},
 * {@link SqsIT}) says how to publish to its outboxes, how a consumer reads its destination and how
 * to make that destination refuse a message, and adds the tests only its relay has.
 *
 * <ul>
 *   <li>10,000 messages over 100 groups all arrive, each once (unless the relay may legitimately
 *       deliver a batch again), and each group in publishing order; then the outbox is empty.
 *   <li>A message the destination refuses holds back the rest of its group, untouched, and only
 *       that: every other group arrives; once the refusal is lifted, the held groups arrive too, in
 *       order, and the outbox is empty.
 * </ul>
 */
abstract class RelayScenarios {

  /**
   * One message as a consumer of the relay's destination received it, with the delivery attempt it
   * carried (0 where the reader does not look).
   */
  record Arrival(long id, String group, int attempt) {
    Arrival(long id, String group) {
      this(id, group, 0);
    }
  }

  /**
   * A way the relay's destination refuses one message for its own content, and what the message's
   * {@code last_error} then says.
   */
  record Poison(String what, Consumer<String> lastError) {}

  /** A consumer of the relay's destination, reading it as an application would. */
  interface Reader extends AutoCloseable {

    /** Takes what the destination handed out since the last call, in arrival order. */
    List<Arrival> take() throws Exception;

    /** How long to wait between two {@link #take()}s while waiting for messages. */
    default Duration pollInterval() {
      return Duration.ofMillis(100);
    }

    @Override
    default void close() throws Exception {}
  }

  /**
   * What the refusal scenario published, each group's message ids in publishing order, and which of
   * them the destination refuses, each with what its {@code last_error} must say.
   */
  final class Refusals {

    private final String run;
    private final Map<String, List<Long>> published = new LinkedHashMap<>();
    private final Map<Long, Consumer<String>> refused = new LinkedHashMap<>();
    private final Set<Long> discarded = new HashSet<>();

    Refusals(String run) {
      this.run = run;
    }

    /** This scenario's prefix of group keys. */
    String run() {
      return run;
    }

    /** Records message {@code id}, just published in {@code group}. */
    long add(String group, long id) {
      published.computeIfAbsent(group, g -> new ArrayList<>()).add(id);
      return id;
    }

    /** The id of the {@code index}th message published in {@code group}. */
    long id(String group, int index) {
      return published.get(group).get(index);
    }

    /** Message {@code id} will be refused; {@code lastError} checks what the outbox then says. */
    void refuse(long id, Consumer<String> lastError) {
      refused.put(id, lastError);
    }

    /** Discards every refused message (the operator's way out), which releases its group. */
    void discardRefused() {
      for (long id : refused.keySet()) {
        admin.discard(refusingOutbox, id);
        discarded.add(id);
      }
    }
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  private final String bulkOutbox;
  private final String refusingOutbox;
  private final Duration bulkWithin;
  private final Duration refusalsWithin;
  private final Duration releaseWithin;

  /**
   * @param bulkOutbox the outbox the 10,000 messages go to
   * @param refusingOutbox the outbox whose destination refuses messages
   * @param bulkWithin how long the 10,000 messages may take to arrive
   * @param refusalsWithin how long the destination may take to refuse and the other groups to
   *     arrive
   * @param releaseWithin how long the held groups may take to arrive once the refusal is lifted
   */
  RelayScenarios(
      String bulkOutbox,
      String refusingOutbox,
      Duration bulkWithin,
      Duration refusalsWithin,
      Duration releaseWithin) {
    this.bulkOutbox = bulkOutbox;
    this.refusingOutbox = refusingOutbox;
    this.bulkWithin = bulkWithin;
    this.refusalsWithin = refusalsWithin;
    this.releaseWithin = releaseWithin;
  }

  /** Publishes message {@code seq} of {@code group} to the bulk outbox; returns its id. */
  abstract long publishBulk(String group, int seq);

  /** A consumer of the bulk outbox's destination. */
  abstract Reader bulkReader() throws Exception;

  /** Checks what only this relay promises about the 10,000 messages of {@code run}. */
  void checkBulk(String run) throws Exception {}

  /**
   * A consumer of the refusing outbox's destination, opened before anything is published, for the
   * relays whose destination can be made to refuse a message ({@link
   * #refusalHoldsBackOnlyItsGroup}).
   */
  Reader refusalReader() throws Exception {
    throw new UnsupportedOperationException("no refusing outbox");
  }

  /**
   * Publishes, in one transaction, a few messages in each of several groups of {@code
   * refusals.run()} to the refusing outbox, recording them and the ones the destination refuses.
   */
  void publishRefused(Refusals refusals) throws Exception {
    throw new UnsupportedOperationException("no refusing outbox");
  }

  /**
   * Lifts the refusal, and records whatever it published meanwhile. By default it discards the
   * refused messages.
   */
  void liftRefusal(Refusals refusals) throws Exception {
    refusals.discardRefused();
  }

  /** Checks what only this relay promises once the refusal was lifted. */
  void checkRelease(Refusals refusals) throws Exception {}

  /**
   * True for a relay whose 10,000 messages may arrive twice (at least once, see the guarantees: a
   * batch written again after its destination committed it but the database did not): the bulk
   * scenario then drops what arrives twice, by id, as the relay's consumers should. Elsewhere a
   * message that arrives twice fails the scenarios.
   */
  boolean bulkMayRepeat() {
    return false;
  }

  /**
   * The ways this relay's destination refuses a message for its own content, provoked in the
   * charged-alone scenarios ({@link #chargedAlone}), which the relays that can provoke them run.
   */
  List<Poison> poisons() {
    return List.of();
  }

  /**
   * The outbox of the charged-alone scenarios (one partition, batches of 200): with max-attempts
   * infinity when {@code retriesForever}, else 3.
   */
  String poisonOutbox(boolean retriesForever) {
    throw new UnsupportedOperationException("no poison outbox");
  }

  /** A consumer of the poison outboxes' destination that sees each message's attempt. */
  Reader poisonReader() throws Exception {
    throw new UnsupportedOperationException("no poison outbox");
  }

  /**
   * Publishes message {@code seq} of {@code group} to {@link #poisonOutbox}, made to be refused as
   * {@code poison} says, or healthy when it is null.
   */
  long publishPoison(boolean retriesForever, String group, int seq, Poison poison) {
    throw new UnsupportedOperationException("no poison outbox");
  }

  /**
   * One full batch of 40 groups of 5 in one partition, one message of two groups in its middle
   * refused by the destination for its content: every other message arrives at its first attempt,
   * in group order; the refused ones die after exactly 3 attempts and their groups go on, or, under
   * infinity, are retried and hold their groups until an operator discards them.
   */
  void chargedAlone(boolean retriesForever) throws Exception {
    assertThat(poisons()).as("the refusals this relay provokes").isNotEmpty();
    String outbox = poisonOutbox(retriesForever);
    String run = outbox + "-" + UUID.randomUUID() + "-";
    Map<String, List<Long>> published = new LinkedHashMap<>();
    Map<Long, Poison> refused = new LinkedHashMap<>();
    try (Reader reader = poisonReader()) {
      tx.begin();
      for (int seq = 0; seq < 5; seq++) {
        for (int g = 0; g < 40; g++) {
          Poison poison = null;
          for (int k = 0; k < poisons().size(); k++) {
            if (g == 17 + 12 * k && seq == 2 - k) {
              poison = poisons().get(k);
            }
          }
          long id = publishPoison(retriesForever, run + g, seq, poison);
          published.computeIfAbsent(run + g, k -> new ArrayList<>()).add(id);
          if (poison != null) {
            refused.put(id, poison);
          }
        }
      }
      tx.commit();

      await()
          .atMost(Duration.ofSeconds(60))
          .pollInSameThread()
          .until(
              () ->
                  refused.keySet().stream()
                      .allMatch(id -> retriesForever ? attempts(id) >= 3 : state(id) == 2));
      Map<String, List<Long>> expected = new LinkedHashMap<>();
      Map<String, List<Long>> held = new LinkedHashMap<>();
      published.forEach(
          (group, ids) -> {
            List<Long> arrive = new ArrayList<>();
            for (long id : ids) {
              if (refused.containsKey(id)) {
                if (retriesForever) {
                  held.put(group, ids.subList(ids.indexOf(id) + 1, ids.size()));
                  break;
                }
              } else {
                arrive.add(id);
              }
            }
            expected.put(group, arrive);
          });
      Arrivals arrived = new Arrivals(run, false);
      takeUntil(reader, arrived, expected.values().stream().mapToInt(List::size).sum(), bulkWithin);

      assertThat(arrived.byGroup).as("every other message, in group order").isEqualTo(expected);
      assertThat(arrived.attempts)
          .as("every other message went out at its first attempt: never charged")
          .containsOnly(1);
      Map<Long, long[]> rows = rows(outbox, run);
      Set<Long> left = new HashSet<>(refused.keySet());
      held.values().forEach(left::addAll);
      assertThat(rows.keySet()).as("left in the outbox").isEqualTo(left);
      refused.forEach(
          (id, poison) -> {
            poison.lastError().accept(lastError(id));
            if (!retriesForever) {
              assertThat(rows.get(id))
                  .as("%s: dead after 3 attempts", poison.what())
                  .containsExactly(2, 3);
            }
          });
      for (List<Long> ids : held.values()) {
        for (long id : ids) {
          assertThat(rows.get(id)).as("message %d: held, never tried", id).containsExactly(1, 0);
        }
      }

      for (long id : refused.keySet()) {
        admin.discard(outbox, id);
      }
      if (retriesForever) {
        Arrivals released = new Arrivals(run, false);
        takeUntil(
            reader, released, held.values().stream().mapToInt(List::size).sum(), releaseWithin);
        assertThat(released.byGroup).as("the held groups, once discarded").isEqualTo(held);
        assertThat(released.attempts).containsOnly(1);
      }
    }
    assertThat(rows(outbox, run)).as("nothing left in the outbox").isEmpty();
  }

  @Test
  void tenThousandMessagesOverAHundredGroupsArriveCompleteAndInGroupOrder() throws Exception {
    String run = bulkOutbox + "-" + UUID.randomUUID() + "-";
    try (Reader reader = bulkReader()) {
      Map<String, List<Long>> published = Bulk.publish(tx, run, 10_000, 100, this::publishBulk);

      Arrivals arrived = new Arrivals(run, bulkMayRepeat());
      takeUntil(reader, arrived, 10_000, bulkWithin);

      assertThat(arrived.byGroup).isEqualTo(published);
    }
    assertThat(Sql.number("select count(*) from outboxer_message where outbox = ?", bulkOutbox))
        .isZero();
    checkBulk(run);
  }

  /**
   * Messages the destination refuses for their content, in several groups: each group arrives up to
   * its refused message, which is charged, and the rest of the group is held, never tried; once the
   * refusal is lifted the held groups arrive, each once and in order. The relays whose destination
   * can be made to refuse a message run it.
   */
  void refusalHoldsBackOnlyItsGroup() throws Exception {
    Refusals refusals = new Refusals(refusingOutbox + "-" + UUID.randomUUID() + "-");
    try (Reader reader = refusalReader()) {
      publishRefused(refusals);
      assertThat(refusals.refused).as("the scenario refuses something").isNotEmpty();

      // What arrives before the refusals are lifted: every group up to its first refused message.
      Map<String, List<Long>> before = new LinkedHashMap<>();
      Map<String, List<Long>> held = new LinkedHashMap<>();
      refusals.published.forEach(
          (group, ids) -> {
            int first = 0;
            while (first < ids.size() && !refusals.refused.containsKey(ids.get(first))) {
              first++;
            }
            if (first > 0) {
              before.put(group, ids.subList(0, first));
            }
            if (first < ids.size() - 1) {
              held.put(group, ids.subList(first + 1, ids.size()));
            }
          });
      int expected = before.values().stream().mapToInt(List::size).sum();

      // Wait until each refused message failed twice (so its group is seen held, not just slow)
      // and the other messages arrived; then read a little longer: nothing else may come.
      Arrivals taken = new Arrivals(refusals.run, false);
      takeUntil(
          reader,
          taken,
          expected,
          refusalsWithin,
          () -> refusals.refused.keySet().stream().allMatch(id -> attempts(id) >= 2));

      assertThat(taken.byGroup).as("every group up to its refused message").isEqualTo(before);
      refusals.refused.forEach((id, lastError) -> lastError.accept(lastError(id)));
      Set<Long> expectedRows = new HashSet<>(refusals.refused.keySet());
      held.values().forEach(expectedRows::addAll);
      Map<Long, long[]> rows = rows(refusals.run);
      assertThat(rows.keySet())
          .as("in the outbox: the refused messages and the rest of their groups")
          .isEqualTo(expectedRows);
      for (List<Long> ids : held.values()) {
        for (long id : ids) {
          assertThat(rows.get(id))
              .as("message %d: held (state 1), never tried", id)
              .containsExactly(1, 0);
        }
      }

      // Lift the refusal: the held groups arrive, each once and in order.
      liftRefusal(refusals);
      Map<String, List<Long>> after = new LinkedHashMap<>();
      refusals.published.forEach(
          (group, ids) -> {
            List<Long> rest = new ArrayList<>(ids);
            rest.removeAll(refusals.discarded);
            rest.removeAll(taken.byGroup.getOrDefault(group, List.of()));
            if (!rest.isEmpty()) {
              after.put(group, rest);
            }
          });
      Arrivals released = new Arrivals(refusals.run, false);
      released.seen.addAll(taken.seen);
      takeUntil(
          reader, released, after.values().stream().mapToInt(List::size).sum(), releaseWithin);
      assertThat(released.byGroup).as("the rest of every group, in order").isEqualTo(after);
      checkRelease(refusals);
    }
    assertThat(rows(refusals.run)).as("nothing left in the outbox").isEmpty();
  }

  /** What arrived of {@code run}: the ids by group in arrival order, and every id seen. */
  private static final class Arrivals {
    final String run;
    final Map<String, List<Long>> byGroup = new LinkedHashMap<>();
    final Set<Long> seen = new HashSet<>();
    final Set<Integer> attempts = new HashSet<>();
    final boolean mayRepeat;
    int count;

    Arrivals(String run, boolean mayRepeat) {
      this.run = run;
      this.mayRepeat = mayRepeat;
    }

    void addAll(List<Arrival> arrivals) {
      for (Arrival a : arrivals) {
        if (a.group() == null || !a.group().startsWith(run)) {
          continue; // another test's
        }
        if (!seen.add(a.id())) {
          assertThat(mayRepeat).as("message %d arrived twice", a.id()).isTrue();
          continue;
        }
        byGroup.computeIfAbsent(a.group(), g -> new ArrayList<>()).add(a.id());
        attempts.add(a.attempt());
        count++;
      }
    }
  }

  /** Takes until {@code expected} messages arrived, then reads a little longer. */
  private void takeUntil(Reader reader, Arrivals arrivals, int expected, Duration within) {
    takeUntil(reader, arrivals, expected, within, () -> true);
  }

  /**
   * Takes until {@code expected} messages arrived and {@code also} holds, then reads a little
   * longer; on a timeout says how many arrived and what the outboxes hold.
   */
  private void takeUntil(
      Reader reader, Arrivals arrivals, int expected, Duration within, Callable<Boolean> also) {
    try {
      await()
          .atMost(within)
          .pollInSameThread()
          .pollInterval(reader.pollInterval())
          .until(
              () -> {
                arrivals.addAll(reader.take());
                return arrivals.count >= expected && also.call();
              });
    } catch (ConditionTimeoutException e) {
      List<String> rows = new ArrayList<>();
      for (Object[] row :
          Sql.query(
              "select outbox, state, count(*), max(attempts) from outboxer_message"
                  + " group by outbox, state order by outbox, state")) {
        rows.add(row[0] + " state " + row[1] + ": " + row[2] + " rows, attempts up to " + row[3]);
      }
      throw new AssertionError(
          arrivals.count + " of " + expected + " arrived within " + within + "; rows: " + rows, e);
    }
    readQuietly(reader, arrivals);
  }

  /**
   * Goes on taking for another second, so that what should not come (a message twice, one that
   * should be held) would be there for the checks that follow.
   */
  private static void readQuietly(Reader reader, Arrivals arrivals) {
    long start = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInSameThread()
        .pollInterval(reader.pollInterval())
        .until(
            () -> {
              arrivals.addAll(reader.take());
              return System.nanoTime() - start >= Duration.ofSeconds(1).toNanos();
            });
  }

  private static long attempts(long id) {
    List<Object[]> row = Sql.query("select attempts from outboxer_message where id = ?", id);
    return row.isEmpty() ? 0 : ((Number) row.get(0)[0]).longValue();
  }

  private static long state(long id) {
    List<Object[]> row = Sql.query("select state from outboxer_message where id = ?", id);
    return row.isEmpty() ? -1 : ((Number) row.get(0)[0]).longValue();
  }

  private static String lastError(long id) {
    return (String) Sql.query("select last_error from outboxer_message where id = ?", id).get(0)[0];
  }

  /** The rows of the run's groups in the refusing outbox: id to {state, attempts}. */
  private Map<Long, long[]> rows(String run) {
    return rows(refusingOutbox, run);
  }

  /** The rows of the run's groups in {@code outbox}: id to {state, attempts}. */
  private static Map<Long, long[]> rows(String outbox, String run) {
    Map<Long, long[]> rows = new HashMap<>();
    for (Object[] r :
        Sql.query(
            "select id, state, attempts from outboxer_message where outbox = ? and group_key like ?",
            outbox,
            run + "%")) {
      rows.put(
          ((Number) r[0]).longValue(),
          new long[] {((Number) r[1]).longValue(), ((Number) r[2]).longValue()});
    }
    return rows;
  }
}
