package io.outboxer.it.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.Outbox;
import io.outboxer.OutboxException;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvent;
import io.outboxer.it.support.QueueProbe;
import io.outboxer.it.support.Received;
import io.outboxer.it.support.Sql;
import io.outboxer.it.support.Unserializable;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Publishing in container transactions, end to end through Hibernate, the worker and the JMS relay
 * of the default outbox (the demo queue). Runs once on PostgreSQL and once on SQLite.
 */
@ExtendWith(ArquillianExtension.class)
class PublishIT {

  private static final String QUEUE = "jms/outboxer/demo";

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(PublishIT.class);
  }

  @Inject Outbox outbox;
  @Inject UserTransaction tx;

  private QueueProbe queue;
  private String run;

  @BeforeEach
  void open() {
    queue = new QueueProbe(QUEUE);
    run = "publish-" + UUID.randomUUID() + "-";
  }

  @AfterEach
  void close() throws Exception {
    queue.close();
    if (tx.getStatus() != Status.STATUS_NO_TRANSACTION) {
      tx.rollback();
    }
  }

  @Test
  void commitStoresExactlyOneRowThenDeliversExactlyOneMessage() throws Exception {
    tx.begin();
    long id = outbox.publish(new ItEvent(run + "a", 1));
    assertThat(rows(id)).as("rows inside the publishing transaction").isEqualTo(1);
    tx.commit();

    long marker = publishCommitted(new ItEvent(run + "a", 2));
    List<Received> received = queue.receiveUntil(r -> ids(r).contains(marker));

    assertThat(ofRun(received)).extracting(Received::id).containsExactly(id, marker);
    Received first = ofRun(received).get(0);
    assertThat(first.outbox()).isEqualTo("default");
    assertThat(first.group()).isEqualTo(run + "a");
    assertThat(first.type()).isEqualTo(ItEvent.class.getName());
    assertThat(first.payload()).isEqualTo("{\"group\":\"" + run + "a\",\"seq\":1}");
    assertThat(rows(id)).as("rows after the relay confirmed").isZero();
  }

  @Test
  void rollbackLeavesNeitherRowNorMessage() throws Exception {
    tx.begin();
    long rolledBack = outbox.publish(new ItEvent(run + "b", 1));
    tx.rollback();
    assertThat(rows(rolledBack)).isZero();

    // The marker goes to the same group, so anything of the rolled-back message would come first.
    long marker = publishCommitted(new ItEvent(run + "b", 2));
    List<Received> received = queue.receiveUntil(r -> ids(r).contains(marker));

    assertThat(ofRun(received)).extracting(Received::id).containsExactly(marker);
  }

  @Test
  void publishOutsideATransactionIsRefused() {
    assertThatThrownBy(() -> outbox.publish(new ItEvent(run + "c", 1)))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-2001 Outbox.publish("
                + ItEvent.class.getName()
                + ") needs an active JTA transaction, and none is active on this thread: call it"
                + " from a transactional method (@Transactional, or an EJB method)");
    assertThat(rowsOfRun()).isZero();
  }

  @Test
  void badMessagesAreRefusedWithoutARowAndLeaveTheTransactionUsable() throws Exception {
    tx.begin();
    assertThatThrownBy(() -> outbox.publish(null))
        .isInstanceOf(OutboxException.class)
        .hasMessage("OUTBOXER-2002 cannot publish null: pass an OutboxMessage");
    assertThatThrownBy(() -> outbox.publish(new Unserializable()))
        .isInstanceOf(OutboxException.class)
        .hasMessageStartingWith(
            "OUTBOXER-2003 JSON-B cannot serialize " + Unserializable.class.getName() + ": ");
    assertThatThrownBy(() -> outbox.publish(new ItEvent(run + "x".repeat(500), 1)))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-2004 group key of "
                + ItEvent.class.getName()
                + " is "
                + (run.length() + 500)
                + " characters long; the limit is 500");
    assertThat(tx.getStatus()).isEqualTo(Status.STATUS_ACTIVE);
    long id = outbox.publish(new ItEvent(run + "d", 1));
    tx.commit();

    List<Received> received = queue.receiveUntil(r -> ids(r).contains(id));
    assertThat(ofRun(received)).extracting(Received::id).containsExactly(id);
  }

  @Test
  void thousandMessagesOverFiftyGroupsAllArriveOnceInGroupOrder() throws Exception {
    Map<String, List<Long>> published = new LinkedHashMap<>();
    int seq = 0;
    for (int t = 0; t < 20; t++) {
      tx.begin();
      for (int i = 0; i < 50; i++) {
        String group = run + "g" + ((seq * 7) % 50);
        published
            .computeIfAbsent(group, g -> new ArrayList<>())
            .add(outbox.publish(new ItEvent(group, seq++)));
      }
      tx.commit();
    }
    // One marker per group: a redelivered (duplicate) message of a group would come before it.
    Map<String, Long> markers = new HashMap<>();
    tx.begin();
    for (String group : published.keySet()) {
      markers.put(group, outbox.publish(new ItEvent(group, -1)));
    }
    tx.commit();

    List<Received> received = queue.receiveUntil(r -> ids(r).containsAll(markers.values()));

    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    for (Received r : ofRun(received)) {
      if (!markers.containsValue(r.id())) {
        arrived.computeIfAbsent(r.group(), g -> new ArrayList<>()).add(r.id());
      }
    }
    assertThat(published).hasSize(50);
    assertThat(published.values().stream().mapToInt(List::size).sum()).isEqualTo(1000);
    assertThat(arrived).isEqualTo(published);
    assertThat(rowsOfRun()).isZero();
  }

  private long publishCommitted(ItEvent event) throws Exception {
    tx.begin();
    long id = outbox.publish(event);
    tx.commit();
    return id;
  }

  private static long rows(long id) {
    return Sql.number("select count(*) from outboxer_message where id = ?", id);
  }

  private long rowsOfRun() {
    return Sql.number("select count(*) from outboxer_message where group_key like ?", run + "%");
  }

  private List<Received> ofRun(List<Received> received) {
    return received.stream().filter(r -> r.group() != null && r.group().startsWith(run)).toList();
  }

  private static List<Long> ids(List<Received> received) {
    return received.stream().map(Received::id).toList();
  }
}
