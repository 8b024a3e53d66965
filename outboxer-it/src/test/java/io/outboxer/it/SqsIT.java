package io.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.OutboxAdmin;
import io.outboxer.it.support.Brokers;
import io.outboxer.it.support.Bulk;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.Sql;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The SQS FIFO relay against a real SQS-compatible server (ElasticMQ, started for the PostgreSQL
 * suite), read back by a consumer that receives and deletes as an application would.
 */
@ExtendWith(ArquillianExtension.class)
class SqsIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(SqsIT.class);
  }

  @Inject Outbox outbox;
  @Inject OutboxAdmin admin;
  @Inject UserTransaction tx;

  @BeforeEach
  void createQueues() {
    try (SqsClient sqs = Brokers.sqs()) {
      for (String queue :
          List.of("outboxer-it.fifo", "outboxer-it-small.fifo", "outboxer-it-total.fifo")) {
        sqs.createQueue(
            b -> b.queueName(queue).attributes(Map.of(QueueAttributeName.FIFO_QUEUE, "true")));
      }
    }
  }

  @Test
  void tenThousandMessagesOverAHundredGroupsArriveCompleteAndInGroupOrder() throws Exception {
    String run = "sqs-" + UUID.randomUUID() + "-";
    Map<String, List<Long>> published =
        Bulk.publish(
            tx, run, 10_000, 100, (group, seq) -> outbox.publish(new ItEvents.Sqs(group, seq)));

    Map<String, List<Long>> arrived = receive("outboxer-it.fifo", run, 10_000, 180);

    assertThat(arrived).isEqualTo(published);
    assertThat(Sql.number("select count(*) from outboxer_message where outbox = 'it-sqs'"))
        .isZero();
  }

  /**
   * Group a's third message holds a character SQS does not allow (U+FFFE), so SQS rejects that
   * entry; group d's second is larger than any SQS message may be, so SQS rejects the request that
   * carries it. Only the rest of a and of d is held; b and c, in the same batches, arrive.
   */
  @Test
  void aRejectedMessageHoldsBackOnlyTheRestOfItsGroup() throws Exception {
    String run = "sqs-small-" + UUID.randomUUID() + "-";
    Map<String, List<Long>> published = new LinkedHashMap<>();
    tx.begin();
    for (int i = 0; i < 5; i++) {
      for (String g : List.of("a", "b", "c", "d")) {
        String note = "fine";
        if (g.equals("a") && i == 2) {
          note = "not for SQS: \uFFFE";
        } else if (g.equals("d") && i == 1) {
          note = "x".repeat(1_100_000);
        }
        published
            .computeIfAbsent(run + g, k -> new ArrayList<>())
            .add(outbox.publish(new ItEvents.SqsNote(run + g, i, note)));
      }
    }
    tx.commit();
    long rejected = published.get(run + "a").get(2);
    long tooLong = published.get(run + "d").get(1);

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInSameThread()
        .until(
            () ->
                Sql.number("select attempts from outboxer_message where id = ?", rejected) >= 2
                    && Sql.number("select attempts from outboxer_message where id = ?", tooLong)
                        >= 2);
    Map<String, List<Long>> arrived = receive("outboxer-it-small.fifo", run, 2 + 5 + 5 + 1, 60);
    assertThat(receive("outboxer-it-small.fifo", run, 0, 10)).as("nothing more").isEmpty();

    assertThat(arrived.get(run + "a"))
        .containsExactlyElementsOf(published.get(run + "a").subList(0, 2));
    assertThat(arrived.get(run + "b")).containsExactlyElementsOf(published.get(run + "b"));
    assertThat(arrived.get(run + "c")).containsExactlyElementsOf(published.get(run + "c"));
    assertThat(arrived.get(run + "d"))
        .containsExactlyElementsOf(published.get(run + "d").subList(0, 1));
    assertThat(lastError(rejected))
        .isEqualTo("SQS rejected the message: InvalidAttributeValue: InvalidMessageContents");
    assertThat(lastError(tooLong))
        .startsWith("SQS refused the request to ")
        .contains("MessageTooLong");
    assertThat(
            Sql.number(
                "select count(*) from outboxer_message where group_key in (?, ?) and state = 1",
                run + "a",
                run + "d"))
        .as("the rest of groups a and d is held, not sent")
        .isEqualTo(2 + 3);

    // Discarding the rejected messages releases their groups, which then arrive in order.
    admin.discard("it-sqs-small", rejected);
    admin.discard("it-sqs-small", tooLong);
    Map<String, List<Long>> rest = receive("outboxer-it-small.fifo", run, 2 + 3, 60);
    assertThat(rest.get(run + "a"))
        .containsExactlyElementsOf(published.get(run + "a").subList(3, 5));
    assertThat(rest.get(run + "d"))
        .containsExactlyElementsOf(published.get(run + "d").subList(2, 5));
  }

  private static String lastError(long id) {
    return (String) Sql.query("select last_error from outboxer_message where id = ?", id).get(0)[0];
  }

  /**
   * With total ordering the whole outbox is one SQS message group, so the queue hands out grouped
   * and ungrouped messages alike in id order.
   */
  @Test
  void withTotalOrderingTheQueueKeepsTheOutboxsOrder() throws Exception {
    String run = "sqs-total-" + UUID.randomUUID() + "-";
    List<Long> published = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      tx.begin();
      for (int i = 0; i < 20; i++) {
        int seq = t * 20 + i;
        String group = seq % 3 == 2 ? null : run + (seq % 3);
        published.add(outbox.publish(new ItEvents.SqsTotal(group, seq)));
      }
      tx.commit();
    }

    List<Message> arrived = consume("outboxer-it-total.fifo", 60, 60, m -> true);

    assertThat(arrived.stream().map(SqsIT::id).toList()).containsExactlyElementsOf(published);
    assertThat(arrived)
        .extracting(m -> m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))
        .containsOnly("it-sqs-total");
  }

  private static long id(Message m) {
    return Long.parseLong(m.messageAttributes().get("OutboxerId").stringValue());
  }

  private static String group(Message m) {
    MessageAttributeValue group = m.messageAttributes().get("OutboxerGroup");
    return group == null ? null : group.stringValue();
  }

  /**
   * Receives (and deletes) the messages of this run's groups from {@code queue} until {@code
   * expected} have arrived; then, by group, their outbox ids in arrival order.
   */
  private static Map<String, List<Long>> receive(
      String queue, String run, int expected, int seconds) {
    Map<String, List<Long>> arrived = new LinkedHashMap<>();
    for (Message m :
        consume(queue, expected, seconds, m -> group(m) != null && group(m).startsWith(run))) {
      arrived.computeIfAbsent(group(m), g -> new ArrayList<>()).add(id(m));
    }
    return arrived;
  }

  /**
   * Receives and deletes the messages of {@code queue}, as a consumer would, until {@code expected}
   * of those {@code mine} accepts have arrived; returns these in arrival order. A message seen
   * twice fails.
   */
  private static List<Message> consume(
      String queue, int expected, int seconds, Predicate<Message> mine) {
    List<Message> arrived = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    try (SqsClient sqs = Brokers.sqs()) {
      String url = sqs.getQueueUrl(b -> b.queueName(queue)).queueUrl();
      await()
          .atMost(Duration.ofSeconds(seconds))
          .pollInSameThread()
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                List<Message> messages =
                    sqs.receiveMessage(
                            b ->
                                b.queueUrl(url)
                                    .maxNumberOfMessages(10)
                                    .waitTimeSeconds(1)
                                    .messageAttributeNames("All")
                                    .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                        .messages();
                List<DeleteMessageBatchRequestEntry> done = new ArrayList<>();
                for (Message m : messages) {
                  done.add(
                      DeleteMessageBatchRequestEntry.builder()
                          .id(m.messageId())
                          .receiptHandle(m.receiptHandle())
                          .build());
                  if (mine.test(m)) {
                    assertThat(seen.add(id(m))).as("message %d arrived twice", id(m)).isTrue();
                    arrived.add(m);
                  }
                }
                if (!done.isEmpty()) {
                  sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(done));
                }
                return arrived.size() >= expected;
              });
    }
    return arrived;
  }
}
