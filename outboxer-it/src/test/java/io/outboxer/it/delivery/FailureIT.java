package io.outboxer.it.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.OutboxCounts;
import io.outboxer.OutboxException;
import io.outboxer.it.relay.Journal;
import io.outboxer.it.relay.Journal.Attempt;
import io.outboxer.it.relay.Script;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvent;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.Sql;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Retries with backoff in database time, dead letters, and the operators' admin calls. */
@ExtendWith(ArquillianExtension.class)
class FailureIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(FailureIT.class);
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  private final String run = "failure-" + UUID.randomUUID() + "-";

  @AfterEach
  void heal() {
    for (String o : List.of("it-backoff", "it-dead", "it-group")) {
      Script.failNothing(o);
    }
  }

  @Test
  void aRelayCallThatReturnsAfterItsDeadlineIsIgnoredAndItsBatchDeliveredAgainUncharged()
      throws Exception {
    String group = run + "o";
    // Longer than the batch's budget, a third of the test server's 30 s lease ttl.
    Script.hangNextCall("it-overrun", Duration.ofSeconds(11));
    List<Long> ids =
        publish(
            new ItEvents.Overrun(group, 0),
            new ItEvents.Overrun(group, 1),
            new ItEvents.Overrun(group, 2));

    // The late call reported all three confirmed; the engine ignored it, so they went again.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                Journal.ofOutbox("it-overrun").stream().filter(a -> group.equals(a.group())).count()
                    >= 6);
    List<Attempt> attempts =
        Journal.ofOutbox("it-overrun").stream().filter(a -> group.equals(a.group())).toList();
    assertThat(attempts)
        .extracting(Attempt::id)
        .containsExactly(ids.get(0), ids.get(1), ids.get(2), ids.get(0), ids.get(1), ids.get(2));
    assertThat(attempts)
        .as("no attempt charged for the ignored call")
        .extracting(a -> a.envelope().attempt())
        .containsOnly(1);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInSameThread()
        .until(
            () ->
                Sql.query("select id from outboxer_message where group_key = ?", group).isEmpty());
  }

  private List<Long> publish(ItEvent... events) throws Exception {
    List<Long> ids = new ArrayList<>();
    tx.begin();
    for (ItEvent e : events) {
      ids.add(outbox.publish(e));
    }
    tx.commit();
    return ids;
  }

  private static List<Attempt> attemptsOf(String outbox, long id) {
    return Journal.ofOutbox(outbox).stream().filter(a -> a.id() == id).toList();
  }

  @Test
  void retryTimesAreMinTimesTwoToTheNMinusOneCappedAtMaxInDatabaseTime() throws Exception {
    String group = run + "b";
    Script.fail("it-backoff", e -> group.equals(e.groupKey()));
    long id = publish(new ItEvents.Backoff(group, 0)).get(0);

    // After the n-th failure the row says when it failed and when it is due, both from the
    // database clock in one statement: their difference is the backoff, exactly.
    Map<Integer, Long> delayAfterFailure = new TreeMap<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(10))
        .pollInSameThread()
        .until(
            () -> {
              Object[] row =
                  Sql.query(
                          "select attempts, next_attempt_at - last_attempt_at from outboxer_message"
                              + " where id = ?",
                          id)
                      .get(0);
              int attempts = ((Number) row[0]).intValue();
              if (attempts > 0) {
                delayAfterFailure.put(attempts, ((Number) row[1]).longValue());
              }
              return attempts >= 6;
            });

    delayAfterFailure.forEach(
        (n, delay) ->
            assertThat(delay)
                .as("delay after failure %d", n)
                .isEqualTo(Math.min(800, 200L << (n - 1))));
    assertThat(delayAfterFailure).containsKeys(1, 2, 3, 4, 5);

    List<Attempt> attempts = attemptsOf("it-backoff", id);
    for (int n = 1; n < 5; n++) {
      long gap = attempts.get(n).atMillis() - attempts.get(n - 1).atMillis();
      assertThat(gap)
          .as("gap after failure %d", n)
          .isGreaterThanOrEqualTo(Math.min(800, 200L << (n - 1)) - 2);
    }
    assertThat(attempts).extracting(a -> a.envelope().attempt()).startsWith(1, 2, 3, 4, 5);

    Script.failNothing("it-backoff");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !Journal.delivered(attemptsOf("it-backoff", id)).isEmpty());
  }

  @Test
  void afterMaxAttemptsAMessageIsDeadItsGroupMovesOnAndAdminRevivesOrDiscardsIt() throws Exception {
    String d = run + "d";
    Script.fail("it-dead", e -> d.equals(e.groupKey()) && e.payload().endsWith("\"seq\":0}"));
    List<Long> ids =
        publish(
            new ItEvents.Dead(d, 0),
            new ItEvents.Dead(d, 1),
            new ItEvents.Dead(d, 2),
            new ItEvents.Dead(run + "e", 0));
    long head = ids.get(0);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> admin.counts("it-dead").dead() == 1 && admin.counts("it-dead").pending() == 0);

    assertThat(attemptsOf("it-dead", head))
        .as("exactly three attempts, all failed")
        .extracting(a -> a.envelope().attempt(), Attempt::failed)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, true),
            org.assertj.core.groups.Tuple.tuple(2, true),
            org.assertj.core.groups.Tuple.tuple(3, true));
    assertThat(Journal.delivered(Journal.ofGroupsStartingWith(run)))
        .extracting(Attempt::id)
        .as("the group continues without its dead head")
        .containsExactlyInAnyOrder(ids.get(1), ids.get(2), ids.get(3));
    assertThat(Journal.delivered(Journal.ofGroupsStartingWith(d)))
        .extracting(Attempt::id)
        .containsExactly(ids.get(1), ids.get(2));
    OutboxCounts counts = admin.counts("it-dead");
    assertThat(counts.dead()).isEqualTo(1);
    assertThat(counts.pending()).isZero();
    assertThat(counts.partitions())
        .containsExactly(new OutboxCounts.PartitionCounts(0, 0, 0, 0, 1));
    assertThat(Sql.query("select last_error from outboxer_message where id = ?", head).get(0)[0])
        .isEqualTo("scripted failure of message " + head);

    // Revived with its original id and a fresh attempt count.
    Script.failNothing("it-dead");
    admin.retryDead("it-dead", head);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !Journal.delivered(attemptsOf("it-dead", head)).isEmpty());
    assertThat(Journal.delivered(attemptsOf("it-dead", head)))
        .extracting(a -> a.envelope().attempt())
        .containsExactly(1);
    assertThat(admin.counts("it-dead").dead()).isZero();

    // A second poison dies, and is discarded: gone, never delivered.
    Script.fail("it-dead", e -> true);
    long second = publish(new ItEvents.Dead(run + "f", 0)).get(0);
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("it-dead").dead() == 1);
    admin.discard("it-dead", second);
    assertThat(admin.counts("it-dead").dead()).isZero();
    assertThat(Sql.number("select count(*) from outboxer_message where id = ?", second)).isZero();
    assertThat(Journal.delivered(attemptsOf("it-dead", second))).isEmpty();

    // retryDead of the whole outbox revives every dead message and says how many.
    long third = publish(new ItEvents.Dead(run + "g", 0)).get(0);
    long fourth = publish(new ItEvents.Dead(run + "h", 0)).get(0);
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.counts("it-dead").dead() == 2);
    Script.failNothing("it-dead");
    assertThat(admin.retryDead("it-dead")).isEqualTo(2);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                !Journal.delivered(attemptsOf("it-dead", third)).isEmpty()
                    && !Journal.delivered(attemptsOf("it-dead", fourth)).isEmpty());
  }

  @Test
  void discardingAFailingHeadLetsItsGroupMoveOn() throws Exception {
    String g = run + "x";
    Script.fail("it-group", e -> g.equals(e.groupKey()) && e.payload().endsWith("\"seq\":0}"));
    List<Long> ids =
        publish(new ItEvents.Group(g, 0), new ItEvents.Group(g, 1), new ItEvents.Group(g, 2));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> attemptsOf("it-group", ids.get(0)).size() >= 2);
    assertThat(Journal.delivered(Journal.ofGroupsStartingWith(g))).isEmpty();

    admin.discard("it-group", ids.get(0));

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Journal.delivered(Journal.ofGroupsStartingWith(g)).size() == 2);
    assertThat(Journal.delivered(Journal.ofGroupsStartingWith(g)))
        .extracting(Attempt::id)
        .containsExactly(ids.get(1), ids.get(2));
  }

  @Test
  void adminRefusalsNameTheProblem() throws Exception {
    assertThatThrownBy(() -> admin.counts("nope"))
        .isInstanceOf(OutboxException.class)
        .hasMessageStartingWith(
            "OUTBOXER-2005 unknown outbox 'nope': configure it with outboxer.outbox.nope.relay");
    assertThatThrownBy(() -> admin.discard("it-dead", -5))
        .isInstanceOf(OutboxException.class)
        .hasMessage("OUTBOXER-4001 no message -5 in outbox 'it-dead'");
    assertThatThrownBy(() -> admin.retryDead("it-dead", -5))
        .isInstanceOf(OutboxException.class)
        .hasMessage("OUTBOXER-4001 no message -5 in outbox 'it-dead'");

    String g = run + "p";
    Script.fail("it-group", e -> g.equals(e.groupKey()));
    long pending = publish(new ItEvents.Group(g, 0)).get(0);
    assertThatThrownBy(() -> admin.retryDead("it-group", pending))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-4002 message "
                + pending
                + " of outbox 'it-group' is not dead: it is pending");
    admin.discard("it-group", pending);
    assertThat(Sql.number("select count(*) from outboxer_message where id = ?", pending)).isZero();
  }
}
