package io.outboxer.it.relays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.outboxer.OutboxCounts;
import io.outboxer.internal.health.OutboxerReadiness;
import io.outboxer.it.support.Brokers;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
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
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * The SQS FIFO relay against a real SQS-compatible server (ElasticMQ): the {@link RelayScenarios},
 * read back by a consumer that receives and deletes as an application would, and total ordering.
 */
@ExtendWith(ArquillianExtension.class)
class SqsIT extends RelayScenarios {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(SqsIT.class, RelayScenarios.class);
  }

  SqsIT() {
    super(
        "it-sqs",
        "it-sqs-small",
        Duration.ofSeconds(180),
        Duration.ofSeconds(60),
        Duration.ofSeconds(60));
  }

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

  @Override
  long publishBulk(String group, int seq) {
    return outbox.publish(new ItEvents.Sqs(group, seq));
  }

  @Override
  Reader bulkReader() {
    return reader("outboxer-it.fifo");
  }

  @Override
  Reader refusalReader() {
    return reader("outboxer-it-small.fifo");
  }

  /**
   * Group a's third message holds a character SQS does not allow (U+FFFE), so SQS rejects that
   * entry; group d's second is larger than any SQS message may be, so SQS rejects the request that
   * carries it. Groups b and c, in the same batches, arrive.
   */
  @Override
  void publishRefused(Refusals refusals) throws Exception {
    String run = refusals.run();
    tx.begin();
    for (int i = 0; i < 5; i++) {
      for (String g : List.of("a", "b", "c", "d")) {
        String note = "fine";
        if (g.equals("a") && i == 2) {
          note = "not for SQS: \uFFFE";
        } else if (g.equals("d") && i == 1) {
          note = "x".repeat(1_100_000);
        }
        refusals.add(run + g, outbox.publish(new ItEvents.SqsNote(run + g, i, note)));
      }
    }
    tx.commit();
    refusals.refuse(
        refusals.id(run + "a", 2),
        lastError ->
            assertThat(lastError)
                .isEqualTo(
                    "SQS rejected the message: InvalidAttributeValue: InvalidMessageContents"));
    refusals.refuse(
        refusals.id(run + "d", 1),
        lastError ->
            assertThat(lastError)
                .startsWith("SQS refused the message sent to ")
                .contains("MessageTooLong"));
  }

  private static final Poison REFUSED_ALONE =
      new Poison(
          "a character SQS does not allow (U+FFFE): its entry is rejected",
          lastError ->
              assertThat(lastError)
                  .isEqualTo(
                      "SQS rejected the message: InvalidAttributeValue: InvalidMessageContents"));

  private static final Poison REFUSING_ITS_REQUEST =
      new Poison(
          "larger than any SQS message may be: the whole request is refused",
          lastError ->
              assertThat(lastError)
                  .startsWith("SQS refused the message sent to ")
                  .contains("MessageTooLong"));

  @Test
  void aRefusedMessageHoldsBackOnlyTheRestOfItsGroup() throws Exception {
    refusalHoldsBackOnlyItsGroup();
  }

  @Test
  void aMessageRefusedInAFullBatchIsChargedAloneAndDiesAfterMaxAttempts() throws Exception {
    chargedAlone(false);
  }

  @Test
  void aMessageRefusedInAFullBatchIsChargedAloneAndHoldsItsGroupUnderInfinity() throws Exception {
    chargedAlone(true);
  }

  @Override
  List<Poison> poisons() {
    return List.of(REFUSING_ITS_REQUEST, REFUSED_ALONE);
  }

  @Override
  String poisonOutbox(boolean retriesForever) {
    return retriesForever ? "it-sqs-poison" : "it-sqs-poison3";
  }

  @Override
  Reader poisonReader() {
    return reader("outboxer-it-small.fifo");
  }

  @Override
  long publishPoison(boolean retriesForever, String group, int seq, Poison poison) {
    String note =
        poison == REFUSING_ITS_REQUEST
            ? "x".repeat(1_100_000)
            : poison == REFUSED_ALONE ? "not for SQS: \uFFFE" : "fine";
    return outbox.publish(
        retriesForever
            ? new ItEvents.SqsPoison(group, seq, note)
            : new ItEvents.SqsPoison3(group, seq, note));
  }

  @Inject OutboxerReadiness readiness;

  /**
   * A queue that does not exist is refused with HTTP 400, like a message's content, but it is the
   * destination's outage: with max-attempts 3, calls fail again and again charging nothing,
   * readiness names the partition, and once the queue exists every message arrives, each group in
   * order.
   */
  @Test
  void aMissingQueueChargesNothingAndEverythingArrivesInOrderOnceItExists() throws Exception {
    String queue = "outboxer-it-missing.fifo";
    try (SqsClient sqs = Brokers.sqs()) {
      try {
        String url = sqs.getQueueUrl(b -> b.queueName(queue)).queueUrl();
        sqs.deleteQueue(b -> b.queueUrl(url));
      } catch (QueueDoesNotExistException alreadyMissing) {
        // as the test needs it
      }
    }
    String run = "sqs-missing-" + UUID.randomUUID() + "-";
    List<Long> published = new ArrayList<>();
    tx.begin();
    for (int i = 0; i < 12; i++) {
      published.add(outbox.publish(new ItEvents.SqsMissing(run + (i % 3), i)));
    }
    tx.commit();

    String partition = "relay.it-sqs-missing.partition.0";
    await("readiness naming the partition after five failed calls in a row")
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> String.valueOf(readiness.call().getData().orElse(Map.of()).get(partition)),
            why ->
                why.contains("failed calls in a row: 5)")
                    && why.contains("SQS is unavailable for"));
    OutboxCounts counts = admin.counts("it-sqs-missing");
    assertThat(counts.pending()).isEqualTo(12);
    assertThat(counts.retrying()).as("messages charged").isZero();
    assertThat(counts.dead()).isZero();

    try (SqsClient sqs = Brokers.sqs()) {
      sqs.createQueue(
          b -> b.queueName(queue).attributes(Map.of(QueueAttributeName.FIFO_QUEUE, "true")));
    }
    List<Message> arrived = consume(queue, 12, 60, m -> true);

    assertThat(arrived).extracting(SqsIT::id).containsExactlyInAnyOrderElementsOf(published);
    for (int g = 0; g < 3; g++) {
      String group = run + g;
      assertThat(arrived.stream().filter(m -> group.equals(group(m))).map(SqsIT::id).toList())
          .as("group %s in order", group)
          .isSorted()
          .hasSize(4);
    }
    assertThat(arrived)
        .extracting(m -> m.messageAttributes().get("OutboxerAttempt").stringValue())
        .as("no attempt charged")
        .containsOnly("1");
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

  /**
   * A message published inside a span (this test runs in a servlet request, which Liberty traces)
   * carries the span's context as the {@code traceparent} attribute; one published outside any span
   * carries none.
   */
  @Test
  void theTraceAMessageWasPublishedInTravelsAsTheTraceparentAttribute() throws Exception {
    String run = "sqs-trace-" + UUID.randomUUID() + "-";
    SpanContext span = Span.current().getSpanContext();
    assertThat(span.isValid()).as("the test request's span").isTrue();
    tx.begin();
    long traced = outbox.publish(new ItEvents.SqsTotal(run + "traced", 0));
    tx.commit();
    long untraced;
    try (Scope outsideAnySpan = Context.root().makeCurrent()) {
      tx.begin();
      untraced = outbox.publish(new ItEvents.SqsTotal(run + "untraced", 0));
      tx.commit();
    }

    List<Message> arrived =
        consume("outboxer-it-total.fifo", 2, 60, m -> id(m) == traced || id(m) == untraced);

    assertThat(arrived).extracting(SqsIT::id).containsExactly(traced, untraced);
    assertThat(arrived.get(0).messageAttributes().get("traceparent").stringValue())
        .isEqualTo(
            "00-"
                + span.getTraceId()
                + "-"
                + span.getSpanId()
                + "-"
                + span.getTraceFlags().asHex());
    assertThat(arrived.get(1).messageAttributes()).doesNotContainKey("traceparent");
  }

  private static long id(Message m) {
    return Long.parseLong(m.messageAttributes().get("OutboxerId").stringValue());
  }

  private static String group(Message m) {
    MessageAttributeValue group = m.messageAttributes().get("OutboxerGroup");
    return group == null ? null : group.stringValue();
  }

  /** A consumer of {@code queue} that receives up to 10 messages per take and deletes them. */
  private static Reader reader(String queue) {
    SqsClient sqs = Brokers.sqs();
    String url = sqs.getQueueUrl(b -> b.queueName(queue)).queueUrl();
    return new Reader() {
      @Override
      public List<Arrival> take() {
        List<Arrival> arrived = new ArrayList<>();
        for (Message m : receiveAndDelete(sqs, url)) {
          arrived.add(
              new Arrival(
                  id(m),
                  group(m),
                  Integer.parseInt(m.messageAttributes().get("OutboxerAttempt").stringValue())));
        }
        return arrived;
      }

      @Override
      public Duration pollInterval() {
        return Duration.ZERO;
      }

      @Override
      public void close() {
        sqs.close();
      }
    };
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
                for (Message m : receiveAndDelete(sqs, url)) {
                  if (mine.test(m)) {
                    assertThat(seen.add(id(m))).as("message %d arrived twice", id(m)).isTrue();
                    arrived.add(m);
                  }
                }
                return arrived.size() >= expected;
              });
    }
    return arrived;
  }

  /** One receive (waiting a second at most) of up to 10 messages, all deleted once received. */
  private static List<Message> receiveAndDelete(SqsClient sqs, String url) {
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
    }
    if (!done.isEmpty()) {
      sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(done));
    }
    return messages;
  }
}
