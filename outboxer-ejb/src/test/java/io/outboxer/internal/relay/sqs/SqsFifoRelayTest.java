package io.outboxer.internal.relay.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.config.TestOutboxes;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

class SqsFifoRelayTest {

  private static Envelope message(long id, String group, String payload) {
    return new Envelope(id, "orders", 0, group, "Order", payload, 1, group);
  }

  private static List<Long> ids(List<Envelope> messages) {
    return messages.stream().map(Envelope::id).toList();
  }

  @Test
  void roundKHoldsTheKthMessageOfEachGroupAndUngroupedGoFirst() {
    List<Envelope> batch =
        List.of(
            message(1, "a", "{}"),
            message(2, "a", "{}"),
            message(3, "b", "{}"),
            message(4, null, "{}"),
            message(5, "a", "{}"),
            message(6, "b", "{}"),
            message(7, null, "{}"));

    List<List<Envelope>> rounds = SqsRequests.rounds(batch);

    assertThat(rounds.stream().map(SqsFifoRelayTest::ids))
        .containsExactly(List.of(1L, 3L, 4L, 7L), List.of(2L, 6L), List.of(5L));
  }

  /** Whatever the batch: no request holds two messages of one scope, and each scope keeps order. */
  @Property(tries = 200)
  void requestsKeepEveryGroupInOrderAndNeverCarryTwoOfOne(
      @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 5) Integer> groups,
      @ForAll @IntRange(min = 0, max = 100_000) int payloadSize) {
    List<Envelope> batch = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      String group = groups.get(i) == 0 ? null : "g" + groups.get(i);
      batch.add(message(i + 1, group, "x".repeat(payloadSize)));
    }

    List<Envelope> sent = new ArrayList<>();
    for (List<Envelope> round : SqsRequests.rounds(batch)) {
      for (List<Envelope> request : SqsRequests.requests(round, SqsRequests.DEFAULT_MAX_BYTES)) {
        assertThat(request).hasSizeBetween(1, SqsRequests.MAX_ENTRIES);
        assertThat(
                request.size() == 1
                    || request.size() * payloadSize <= SqsRequests.DEFAULT_MAX_BYTES)
            .isTrue();
        List<String> scopes =
            request.stream().map(Envelope::orderingScope).filter(s -> s != null).toList();
        assertThat(scopes).doesNotHaveDuplicates();
        sent.addAll(request);
      }
    }
    assertThat(sent).containsExactlyInAnyOrderElementsOf(batch);
    for (int g = 1; g <= 5; g++) {
      String scope = "g" + g;
      assertThat(ids(sent.stream().filter(e -> scope.equals(e.orderingScope())).toList()))
          .isSorted();
    }
  }

  @Test
  void aGroupKeySqsCannotTakeIsHashedAndUngroupedMessagesAreTheirOwnGroup() {
    SqsQueue ids = new SqsQueue("https://sqs/1/orders.fifo", 262144, "orders", false);

    assertThat(ids.groupId(message(1, "customer-42", "{}"))).isEqualTo("customer-42");
    assertThat(ids.groupId(message(2, "kunde müller", "{}")))
        .isEqualTo(
            "sha256:" + org.apache.commons.codec.digest.DigestUtils.sha256Hex("kunde müller"));
    assertThat(ids.groupId(message(3, "k".repeat(129), "{}"))).startsWith("sha256:");
    assertThat(ids.groupId(message(4, null, "{}"))).isEqualTo("orders:4");
    assertThat(ids.deduplicationId(message(4, null, "{}"))).isEqualTo("orders:4");
  }

  @Test
  void withTotalOrderingTheWholeOutboxIsOneSqsGroup() {
    SqsQueue ids = new SqsQueue("https://sqs/1/orders.fifo", 262144, "orders", true);

    assertThat(ids.groupId(message(1, "customer-42", "{}"))).isEqualTo("orders");
    assertThat(ids.groupId(message(2, null, "{}"))).isEqualTo("orders");
  }

  /**
   * An SQS endpoint that takes the connection and never answers: the call ends within the call
   * budget saying SQS is unavailable, and charges no message.
   */
  @Test
  void aBatchToAnSqsThatNeverAnswersEndsWithinTheCallBudget() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String endpoint = "http://127.0.0.1:" + silent.getLocalPort();
      OutboxConfig outbox =
          TestOutboxes.orders(
              "sqs",
              Map.of(
                  "queue-url", endpoint + "/000000000000/orders.fifo",
                  "endpoint", endpoint,
                  "region", "eu-west-1",
                  "access-key-id", "id",
                  "secret-access-key", "secret"));
      List<Envelope> batch =
          List.of(message(1, "a", "{}"), message(2, "b", "{}"), message(3, "a", "{}"));

      Duration budget = Duration.ofMillis(1500);
      try (SqsFifoRelay relay = SqsFifoRelay.create(outbox, budget)) {
        long started = System.nanoTime();
        assertThatThrownBy(() -> relay.deliver(batch, budget))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageStartingWith(
                "SQS is unavailable for " + endpoint + "/000000000000/orders.fifo: ")
            .hasMessageContaining("did not complete before the specified timeout configuration");
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(took).isLessThan(budget.plus(Duration.ofSeconds(2)));
      }
    }
  }

  /**
   * An SQS that answers each request slowly: every request may take only what is left of the call,
   * so that all of them together end by its deadline; none starts after it, and what was not sent
   * stays unreported.
   */
  @Test
  void everyRequestOfACallIsGivenWhatIsLeftOfItsDeadlineAndNoneStartsAfterIt() {
    Duration budget = Duration.ofMillis(1500);
    Duration answerAfter = Duration.ofMillis(250);
    long started = System.nanoTime();
    List<Duration> endsBy = new ArrayList<>(); // per request: its start plus its timeout
    SqsClient slow =
        new SqsClient() {
          @Override
          public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
            Duration at = Duration.ofNanos(System.nanoTime() - started);
            endsBy.add(
                request
                    .overrideConfiguration()
                    .flatMap(o -> o.apiCallTimeout())
                    .map(at::plus)
                    .orElse(Duration.ofDays(1)));
            try {
              Thread.sleep(answerAfter.toMillis());
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return SendMessageBatchResponse.builder()
                .successful(
                    request.entries().stream()
                        .map(e -> SendMessageBatchResultEntry.builder().id(e.id()).build())
                        .toList())
                .failed(List.of())
                .build();
          }

          @Override
          public String serviceName() {
            return "sqs";
          }

          @Override
          public void close() {}
        };
    SqsFifoRelay relay =
        new SqsFifoRelay(
            slow,
            new SqsQueue(
                "https://sqs/1/orders.fifo", SqsRequests.DEFAULT_MAX_BYTES, "orders", false),
            budget);
    // One group: one message per request, 20 requests of 250 ms would take 5 s.
    List<Envelope> batch = new ArrayList<>();
    for (long id = 1; id <= 20; id++) {
      batch.add(message(id, "a", "{}"));
    }

    DeliveryReport report = relay.deliver(batch, budget);
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(took).isLessThan(budget.plus(Duration.ofSeconds(2)));
    assertThat(endsBy).isNotEmpty().hasSizeLessThan(batch.size());
    assertThat(endsBy).allSatisfy(end -> assertThat(end).isLessThanOrEqualTo(budget));
    assertThat(report.failed()).isEmpty();
    assertThat(report.confirmed())
        .as("a prefix of the group, one message per request")
        .containsExactlyInAnyOrderElementsOf(
            LongStream.rangeClosed(1, endsBy.size()).boxed().toList());
  }
}
