package io.outboxer.internal.relay.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeValueException;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/** The SQS relay against a scripted SQS that refuses whole requests because of one entry. */
class SqsRefusalTest {

  private final List<List<String>> requests = new ArrayList<>();

  /** An SQS that refuses, with a 400, every request holding a body of "poison". */
  private final SqsClient sqs =
      new SqsClient() {
        @Override
        public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
          requests.add(request.entries().stream().map(SendMessageBatchRequestEntry::id).toList());
          if (request.entries().stream().anyMatch(e -> e.messageBody().equals("poison"))) {
            throw InvalidAttributeValueException.builder()
                .statusCode(400)
                .awsErrorDetails(
                    AwsErrorDetails.builder()
                        .errorCode("InvalidAttributeValue")
                        .errorMessage("MessageTooLong")
                        .build())
                .build();
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

  private static List<Envelope> batch(long poison) {
    return LongStream.rangeClosed(1, 24)
        .mapToObj(
            id ->
                new Envelope(
                    id,
                    "orders",
                    0,
                    "g" + (id - 1) % 12,
                    "T",
                    id == poison ? "poison" : "{}",
                    1,
                    "g" + (id - 1) % 12))
        .toList();
  }

  private SqsFifoRelay relay() {
    return new SqsFifoRelay(
        sqs,
        new SqsQueue("https://sqs/1/orders.fifo", SqsRequests.DEFAULT_MAX_BYTES, "orders", false),
        Duration.ofSeconds(5));
  }

  @Test
  void aRequestRefusedAsAWholeIsHalvedUntilOnlyItsCulpritIsCharged() {
    // 12 groups of 2: round one holds ids 1-12 (requests of 10 and 2), round two 13-24.
    DeliveryReport report = relay().deliver(batch(7));

    assertThat(report.failed()).containsOnlyKeys(7L);
    assertThat(report.failed().get(7L))
        .startsWith("SQS refused the message sent to https://sqs/1/orders.fifo: MessageTooLong");
    assertThat(report.confirmed())
        .as("every other message, but 19, which is behind 7 in group g6")
        .containsExactlyInAnyOrderElementsOf(
            LongStream.rangeClosed(1, 24).filter(id -> id != 7 && id != 19).boxed().toList());
    assertThat(requests.get(0)).hasSize(10);
    assertThat(requests).as("halving 10 entries pins one in log2(10) steps").hasSizeLessThan(14);
  }

  @Test
  void anUnreachableSqsChargesNothingAndLeavesWhatWasNotSettledPending() {
    SqsClient unreachable =
        new SqsClient() {
          private int calls;

          @Override
          public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
            if (calls++ == 0) {
              return sqs.sendMessageBatch(request);
            }
            throw SdkClientException.create("Connection refused");
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
            unreachable,
            new SqsQueue(
                "https://sqs/1/orders.fifo", SqsRequests.DEFAULT_MAX_BYTES, "orders", false),
            Duration.ofSeconds(5));

    DeliveryReport report = relay.deliver(batch(0));

    assertThat(report.confirmed())
        .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    assertThat(report.failed()).isEmpty();
  }

  /** An SQS that answers every request with {@code answer}, counting the requests. */
  private SqsFifoRelay relayAnswering(
      Function<SendMessageBatchRequest, SendMessageBatchResponse> answer) {
    SqsClient scripted =
        new SqsClient() {
          @Override
          public SendMessageBatchResponse sendMessageBatch(SendMessageBatchRequest request) {
            requests.add(request.entries().stream().map(SendMessageBatchRequestEntry::id).toList());
            return answer.apply(request);
          }

          @Override
          public String serviceName() {
            return "sqs";
          }

          @Override
          public void close() {}
        };
    return new SqsFifoRelay(
        scripted,
        new SqsQueue("https://sqs/1/orders.fifo", SqsRequests.DEFAULT_MAX_BYTES, "orders", false),
        Duration.ofSeconds(5));
  }

  private static AwsServiceException refusal(String code) {
    return AwsServiceException.builder()
        .statusCode(400)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code).build())
        .build();
  }

  /** Every entry of the request failed with {@code code}, by the sender's fault or SQS's. */
  private static SendMessageBatchResponse everyEntryFailed(
      SendMessageBatchRequest request, String code, boolean senderFault) {
    return SendMessageBatchResponse.builder()
        .successful(List.of())
        .failed(
            request.entries().stream()
                .map(
                    e ->
                        BatchResultErrorEntry.builder()
                            .id(e.id())
                            .code(code)
                            .message(code)
                            .senderFault(senderFault)
                            .build())
                .toList())
        .build();
  }

  /**
   * A queue that does not exist, or whose KMS key SQS cannot use, is refused with HTTP 400 like a
   * message's content: it is the destination's outage, so the call fails charging nothing, after
   * one request (no halving).
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "AWS.SimpleQueueService.NonExistentQueue",
        "QueueDoesNotExist",
        "KmsDisabled",
        "KmsNotFound",
        "KmsAccessDenied",
        "KmsInvalidState",
        "KmsThrottled",
        "KMS.DisabledException"
      })
  void aRefusalOfTheDestinationChargesNothing(String code) {
    SqsFifoRelay relay =
        relayAnswering(
            request -> {
              throw refusal(code);
            });

    assertThatThrownBy(() -> relay.deliver(batch(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("SQS is unavailable for https://sqs/1/orders.fifo: ")
        .hasMessageContaining(code);
    assertThat(requests).hasSize(1);
  }

  @Test
  void aMissingQueueAsTheSdkTypesItChargesNothing() {
    SqsFifoRelay relay =
        relayAnswering(
            request -> {
              throw QueueDoesNotExistException.builder()
                  .statusCode(400)
                  .awsErrorDetails(
                      AwsErrorDetails.builder()
                          .errorCode("AWS.SimpleQueueService.NonExistentQueue")
                          .errorMessage("The specified queue does not exist.")
                          .build())
                  .build();
            });

    assertThatThrownBy(() -> relay.deliver(batch(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("The specified queue does not exist.");
    assertThat(requests).hasSize(1);
  }

  /** An entry's error that SQS marks as its own fault is not the message's: nothing is charged. */
  @Test
  void anEntrysErrorThatIsNotTheSendersFaultChargesNothing() {
    SqsFifoRelay relay =
        relayAnswering(request -> everyEntryFailed(request, "InternalError", false));

    assertThatThrownBy(() -> relay.deliver(batch(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("InternalError");
  }

  /**
   * The same refusal of an unknown code for every entry of a request is the destination's, whether
   * SQS answered it per entry or for the whole request (halved down to single entries).
   */
  @Test
  void aRefusalEveryEntrySharesIsTheDestinations() {
    SqsFifoRelay perEntry =
        relayAnswering(request -> everyEntryFailed(request, "SomethingNew", true));
    assertThatThrownBy(() -> perEntry.deliver(batch(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("SomethingNew");

    requests.clear();
    SqsFifoRelay whole =
        relayAnswering(
            request -> {
              throw refusal("SomethingNew");
            });
    assertThatThrownBy(() -> whole.deliver(batch(0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a refusal of the destination rather than of the messages");
    assertThat(requests).as("halved down to single entries").hasSizeGreaterThan(10);
  }

  /** A content refusal stays the messages' own even when every entry has it. */
  @Test
  void aContentRefusalOfEveryEntryChargesEachOfThem() {
    SqsFifoRelay relay =
        relayAnswering(request -> everyEntryFailed(request, "InvalidMessageContents", true));

    DeliveryReport report = relay.deliver(batch(0));

    assertThat(report.failed())
        .as("the first message of each of the 12 groups; the second ones wait behind them")
        .containsOnlyKeys(LongStream.rangeClosed(1, 12).boxed().toList());
    assertThat(report.failed().get(1L))
        .isEqualTo("SQS rejected the message: InvalidMessageContents: InvalidMessageContents");
  }
}
