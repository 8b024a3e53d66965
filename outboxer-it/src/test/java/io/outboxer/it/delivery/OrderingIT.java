package io.outboxer.it.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.it.relay.Journal;
import io.outboxer.it.relay.Journal.Attempt;
import io.outboxer.it.relay.Script;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvent;
import io.outboxer.it.support.ItEvents;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A poisoned group (its head fails every time) under each ordering mode: group holds back only that
 * group, total holds back everything behind it, none holds back nothing.
 */
@ExtendWith(ArquillianExtension.class)
class OrderingIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(OrderingIT.class);
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  private final String run = "ordering-" + UUID.randomUUID() + "-";
  private final String poison = run + "poison";

  @AfterEach
  void heal() {
    for (String o : List.of("it-group", "it-total", "it-none")) {
      Script.failNothing(o);
    }
  }

  /** Publishes the scenario in one transaction; returns the published ids per group ("" = none). */
  private Map<String, List<Long>> publishScenario(BiFunction<String, Integer, ItEvent> event)
      throws Exception {
    Map<String, List<Long>> ids = new LinkedHashMap<>();
    tx.begin();
    int seq = 0;
    for (int i = 0; i < 5; i++) {
      ids.computeIfAbsent(poison, g -> new ArrayList<>())
          .add(outbox.publish(event.apply(poison, seq++)));
      for (int g = 0; g < 10; g++) {
        String group = run + "g" + g;
        ids.computeIfAbsent(group, k -> new ArrayList<>())
            .add(outbox.publish(event.apply(group, seq++)));
      }
      for (int u = 0; u < 2; u++) {
        ids.computeIfAbsent("", k -> new ArrayList<>())
            .add(outbox.publish(event.apply(null, seq++)));
      }
    }
    tx.commit();
    return ids;
  }

  private static List<Attempt> attemptsOf(String outbox, List<Long> ids) {
    return Journal.ofOutbox(outbox).stream().filter(a -> ids.contains(a.id())).toList();
  }

  private static List<Long> all(Map<String, List<Long>> ids) {
    return ids.values().stream().flatMap(List::stream).toList();
  }

  @Test
  void groupModeHoldsBackOnlyThePoisonedGroup() throws Exception {
    Script.fail("it-group", e -> poison.equals(e.groupKey()));
    Map<String, List<Long>> ids = publishScenario(ItEvents.Group::new);
    long head = ids.get(poison).get(0);

    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              List<Attempt> attempts = attemptsOf("it-group", all(ids));
              long others = Journal.delivered(attempts).size();
              long headAttempts = attempts.stream().filter(a -> a.id() == head).count();
              return others == 60 && headAttempts >= 3;
            });

    List<Attempt> attempts = attemptsOf("it-group", all(ids));
    for (int g = 0; g < 10; g++) {
      String group = run + "g" + g;
      assertThat(Journal.delivered(attempts).stream().filter(a -> group.equals(a.group())))
          .extracting(Attempt::id)
          .as("group %s in order, each once", group)
          .containsExactlyElementsOf(ids.get(group));
    }
    assertThat(Journal.delivered(attempts).stream().filter(a -> a.group() == null))
        .extracting(Attempt::id)
        .containsExactlyInAnyOrderElementsOf(ids.get(""));
    assertThat(attempts.stream().filter(a -> poison.equals(a.group())))
        .as("only the poisoned head is ever attempted, and it always fails")
        .allMatch(a -> a.id() == head && a.failed());
    assertThat(admin.counts("it-group").pending()).isGreaterThanOrEqualTo(5);

    // The cause is fixed: the group resumes, in order, from its head.
    Script.failNothing("it-group");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Journal.delivered(attemptsOf("it-group", ids.get(poison))).size() == 5);
    assertThat(Journal.delivered(attemptsOf("it-group", ids.get(poison))))
        .extracting(Attempt::id)
        .containsExactlyElementsOf(ids.get(poison));
  }

  @Test
  void totalModeMovesNothingBehindThePoison() throws Exception {
    Script.fail("it-total", e -> poison.equals(e.groupKey()));
    Map<String, List<Long>> ids = publishScenario(ItEvents.Total::new);
    long head = ids.get(poison).get(0);

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> attemptsOf("it-total", List.of(head)).size() >= 3);

    assertThat(attemptsOf("it-total", all(ids)))
        .as("nothing but the failing head is attempted")
        .allMatch(a -> a.id() == head && a.failed());

    Script.failNothing("it-total");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Journal.delivered(attemptsOf("it-total", all(ids))).size() == 65);
    assertThat(Journal.delivered(attemptsOf("it-total", all(ids))))
        .extracting(Attempt::id)
        .as("the whole outbox in id order")
        .isSorted()
        .doesNotHaveDuplicates();
  }

  @Test
  void noneModeHoldsBackNothing() throws Exception {
    // In none mode only the poisoned message itself (the group's first, seq 0) is held back.
    Script.fail("it-none", e -> poison.equals(e.groupKey()) && e.payload().endsWith("\"seq\":0}"));
    Map<String, List<Long>> ids = publishScenario(ItEvents.None::new);
    long head = ids.get(poison).get(0);

    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                Journal.delivered(attemptsOf("it-none", all(ids))).size() == 64
                    && attemptsOf("it-none", List.of(head)).size() >= 3);

    List<Long> delivered =
        Journal.delivered(attemptsOf("it-none", all(ids))).stream().map(Attempt::id).toList();
    List<Long> expected = new ArrayList<>(all(ids));
    expected.remove(head);
    assertThat(delivered).containsExactlyInAnyOrderElementsOf(expected);
  }
}
