package io.outboxer.internal.relay.sqs;

import static io.outboxer.internal.relay.support.MessageAttributes.ATTEMPT;
import static io.outboxer.internal.relay.support.MessageAttributes.GROUP;
import static io.outboxer.internal.relay.support.MessageAttributes.ID;
import static io.outboxer.internal.relay.support.MessageAttributes.OUTBOX;
import static io.outboxer.internal.relay.support.MessageAttributes.TRACE_PARENT;
import static io.outboxer.internal.relay.support.MessageAttributes.TYPE;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.relay.support.BudgetedRelay;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * Sends messages to an Amazon SQS FIFO queue with {@code SendMessageBatch}: {@code MessageGroupId}
 * = the group key, {@code MessageDeduplicationId} = {@code <outbox>:<id>}, so that a message sent
 * again after an unknown outcome is dropped by SQS within its five-minute deduplication window. The
 * {@linkplain io.outboxer.internal.relay.support.MessageAttributes message attributes} carry the
 * id, outbox, type, attempt and, for grouped messages, the group.
 *
 * <p>The group id of a message is its group key where SQS can take it ({@link SqsQueue}); with
 * total ordering every message goes to one SQS group named after the outbox.
 *
 * <p>SQS reports each entry of a batch on its own and may accept an entry that follows a rejected
 * one of the same group. To keep the relay contract, a request carries at most one message per
 * ordering scope: the batch is sent in rounds (the first message of every scope, then the second,
 * ...), each round in requests within SQS's limits ({@link SqsRequests}), and a scope stops at its
 * first rejected entry. A request refused as a whole for its content is halved until the refusal is
 * pinned to its entry; when SQS could not be reached, throttled, answered with a server error or
 * refused the destination (a missing queue, its KMS key: {@link SqsErrors}), nothing is charged and
 * the rest of the batch is left for the next call.
 *
 * <p>Each request may take what is left of the call's {@linkplain BudgetedRelay#deadline deadline},
 * and the call budget at most (the SDK's API call timeout, retries included), so that all requests
 * of a call end by its deadline; no request is started after it: the rest of the batch stays
 * pending.
 *
 * <p>Settings ({@code outboxer.outbox.<name>.relay.sqs.*}): {@code queue-url} (required, a FIFO
 * queue), {@code region}, {@code endpoint}, {@code access-key-id} with {@code secret-access-key};
 * without them the AWS SDK's default region and credential chains apply; {@code max-request-bytes},
 * the request size the queue accepts (default 262144).
 *
 * @param sqs the SQS client, whose calls time out after the call budget
 * @param queue the queue and the ids of the outbox's messages there
 * @param callBudget how long one call may take
 */
public record SqsFifoRelay(SqsClient sqs, SqsQueue queue, Duration callBudget)
    implements BudgetedRelay {

  /** The shortest timeout a request is given, for one started just before the deadline. */
  private static final Duration MIN_REQUEST_TIMEOUT = Duration.ofMillis(1);

  /** Reads the relay's settings and builds the SQS client; no request is sent yet. */
  public static SqsFifoRelay create(OutboxConfig outbox, Duration callBudget) {
    Map<String, String> settings = outbox.relaySettings();
    SqsQueue queue = SqsQueue.of(outbox);
    SqsClientBuilder builder =
        SqsClient.builder()
            .httpClient(UrlConnectionHttpClient.create())
            .overrideConfiguration(c -> c.apiCallTimeout(callBudget));
    String region = settings.get("region");
    if (region != null) {
      builder.region(Region.of(region));
    }
    String endpoint = settings.get("endpoint");
    if (endpoint != null) {
      builder.endpointOverride(endpoint(outbox, endpoint));
    }
    String keyId = settings.get("access-key-id");
    String secret = settings.get("secret-access-key");
    if ((keyId == null) != (secret == null)) {
      throw outbox.missingRelaySetting(
          keyId == null ? "access-key-id" : "secret-access-key",
          "access-key-id and secret-access-key go together");
    }
    if (keyId != null) {
      builder.credentialsProvider(
          StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, secret)));
    }
    SqsClient sqs;
    try {
      sqs = builder.build();
    } catch (SdkException e) {
      throw outbox.missingRelaySetting(
          "region", "no AWS region configured or found by the SDK (" + e.getMessage() + ")");
    }
    return new SqsFifoRelay(sqs, queue, callBudget);
  }

  private static URI endpoint(OutboxConfig outbox, String value) {
    URI uri;
    try {
      uri = new URI(value);
    } catch (URISyntaxException e) {
      throw outbox.invalidRelaySetting(
          "endpoint", "expected a URL such as http://host:port (" + e.getMessage() + ")");
    }
    if (uri.getScheme() == null || uri.getHost() == null) {
      throw outbox.invalidRelaySetting("endpoint", "expected a URL such as http://host:port");
    }
    return uri;
  }

  @Override
  public DeliveryReport deliver(List<Envelope> batch, Duration timeLeft) {
    Deadline deadline = deadline(timeLeft);
    DeliveryReport.Builder report = DeliveryReport.builder();
    Set<String> stopped = new HashSet<>();
    for (List<Envelope> round : SqsRequests.rounds(batch)) {
      List<Envelope> open = new ArrayList<>();
      for (Envelope e : round) {
        if (e.orderingScope() == null || !stopped.contains(e.orderingScope())) {
          open.add(e);
        }
      }
      for (List<Envelope> request : SqsRequests.requests(open, queue.maxRequestBytes())) {
        if (deadline.passed()) {
          return report.build();
        }
        SdkException unavailable = send(request, report, stopped, deadline);
        if (unavailable != null) {
          DeliveryReport settled = report.build();
          if (settled.confirmed().isEmpty() && settled.failed().isEmpty()) {
            throw new IllegalStateException(
                "SQS is unavailable for " + queue.url() + ": " + unavailable.getMessage(),
                unavailable);
          }
          return settled; // the rest waits, no attempt charged
        }
      }
    }
    return report.build();
  }

  /**
   * Sends one request and records its outcome. A request that SQS refuses as a whole for its
   * content (HTTP 400, neither throttling nor the destination's refusal: {@link SqsErrors}) is cut
   * in halves until the refusal is pinned to its entry, so that only that entry is charged; the
   * entries of one request belong to distinct scopes, so the halves may go in any order. A refusal
   * that every entry of the request shares, of a code not known as a content refusal, is the
   * destination's: nothing is charged.
   *
   * @return null, or the failure that leaves the rest of the batch waiting, uncharged: SQS could
   *     not be reached, throttled, refused the destination, or failed the request for another
   *     reason than its content
   */
  private SdkException send(
      List<Envelope> request,
      DeliveryReport.Builder report,
      Set<String> stopped,
      Deadline deadline) {
    Map<Long, Refusal> refused = new LinkedHashMap<>();
    SdkException unavailable = send(request, refused, report, stopped, deadline);
    List<String> codes = refused.values().stream().map(Refusal::code).toList();
    if (unavailable == null && SqsErrors.sharedByAll(codes, request.size())) {
      return SdkException.create(
          "SQS refused every message of a request to "
              + queue.url()
              + " with "
              + codes.get(0)
              + ", a refusal of the destination rather than of the messages: "
              + refused.values().iterator().next().reason(),
          null);
    }
    refused.forEach((id, refusal) -> report.failed(id, refusal.reason()));
    return unavailable;
  }

  /** An entry's refusal, charged once its request is known not to be refused as a whole. */
  private record Refusal(String code, String reason) {}

  private SdkException send(
      List<Envelope> request,
      Map<Long, Refusal> refused,
      DeliveryReport.Builder report,
      Set<String> stopped,
      Deadline deadline) {
    Map<String, Envelope> byEntry = new LinkedHashMap<>();
    List<SendMessageBatchRequestEntry> entries = new ArrayList<>(request.size());
    for (Envelope e : request) {
      byEntry.put(Long.toString(e.id()), e);
      entries.add(entry(e));
    }
    SendMessageBatchResponse response;
    try {
      // Each request may take what is left of the call, retries included, and the client's
      // timeout (the call budget) at most: all requests of a call end by its deadline.
      Duration left = deadline.remaining();
      Duration timeout = left.compareTo(MIN_REQUEST_TIMEOUT) > 0 ? left : MIN_REQUEST_TIMEOUT;
      response =
          sqs.sendMessageBatch(
              b ->
                  b.queueUrl(queue.url())
                      .entries(entries)
                      .overrideConfiguration(o -> o.apiCallTimeout(timeout)));
    } catch (SdkException ex) {
      if (!SqsErrors.refusesContent(ex)) {
        request.forEach(e -> stop(e, stopped));
        return ex;
      }
      if (request.size() == 1) {
        refused.put(
            request.get(0).id(),
            new Refusal(
                SqsErrors.code((AwsServiceException) ex),
                "SQS refused the message sent to " + queue.url() + ": " + ex.getMessage()));
        stop(request.get(0), stopped);
        return null;
      }
      int half = request.size() / 2;
      for (List<Envelope> part :
          List.of(request.subList(0, half), request.subList(half, request.size()))) {
        SdkException unavailable =
            deadline.passed() ? null : send(part, refused, report, stopped, deadline);
        if (deadline.passed() || unavailable != null) {
          request.forEach(
              e -> stop(e, stopped)); // the rest of these scopes waits for the next call
          return unavailable;
        }
      }
      return null;
    }
    for (SendMessageBatchResultEntry ok : response.successful()) {
      Envelope e = byEntry.remove(ok.id());
      if (e != null) {
        report.confirmed(e.id());
      }
    }
    SdkException notTheMessages = null;
    for (BatchResultErrorEntry error : response.failed()) {
      Envelope e = byEntry.remove(error.id());
      if (e == null) {
        continue;
      }
      String reason = "SQS rejected the message: " + error.code() + ": " + error.message();
      if (SqsErrors.refusesEntry(error)) {
        refused.put(e.id(), new Refusal(error.code(), reason));
      } else {
        // SQS's own fault, or the destination's: the message stays pending, uncharged.
        notTheMessages = SdkException.create(reason + " (not the message's fault)", null);
      }
      stop(e, stopped);
    }
    // An entry SQS did not mention stays unreported: pending, its attempt not counted.
    byEntry.values().forEach(e -> stop(e, stopped));
    return notTheMessages;
  }

  private static void stop(Envelope e, Set<String> stopped) {
    if (e.orderingScope() != null) {
      stopped.add(e.orderingScope());
    }
  }

  private SendMessageBatchRequestEntry entry(Envelope e) {
    Map<String, MessageAttributeValue> attributes = new HashMap<>();
    attributes.put(ID, number(e.id()));
    attributes.put(OUTBOX, string(e.outbox()));
    attributes.put(TYPE, string(e.type()));
    attributes.put(ATTEMPT, number(e.attempt()));
    if (e.groupKey() != null) {
      attributes.put(GROUP, string(e.groupKey()));
    }
    if (e.traceParent() != null) {
      attributes.put(TRACE_PARENT, string(e.traceParent()));
    }
    return SendMessageBatchRequestEntry.builder()
        .id(Long.toString(e.id()))
        .messageBody(e.payload())
        .messageAttributes(attributes)
        .messageDeduplicationId(queue.deduplicationId(e))
        .messageGroupId(queue.groupId(e))
        .build();
  }

  private static MessageAttributeValue string(String value) {
    return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
  }

  private static MessageAttributeValue number(long value) {
    return MessageAttributeValue.builder()
        .dataType("Number")
        .stringValue(Long.toString(value))
        .build();
  }

  @Override
  public void close() {
    sqs.close();
  }
}
