package io.outboxer.internal.relay.sqs;

import io.outboxer.internal.config.OutboxConfig;
import io.outboxer.internal.rules.Ordering;
import io.outboxer.spi.Envelope;
import java.util.regex.Pattern;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * The FIFO queue an outbox sends to, and the ids of the outbox's messages there. {@code
 * MessageDeduplicationId} is {@code <outbox>:<id>}. {@code MessageGroupId} is the group key when
 * SQS accepts it as one (at most 128 characters of ASCII letters, digits and punctuation), else
 * {@code sha256:} and the key's SHA-256 in hex; an ungrouped message is independent, so it is its
 * own SQS group (its deduplication id); with total ordering every message goes to one SQS group
 * named after the outbox.
 *
 * @param url {@code relay.sqs.queue-url}, required, ending with {@code .fifo}
 * @param maxRequestBytes {@code relay.sqs.max-request-bytes}: the size of one request the queue
 *     accepts, from 1024 to 16777216, default 262144
 * @param outbox the outbox name
 * @param totalOrder whether the outbox keeps total order
 */
record SqsQueue(String url, int maxRequestBytes, String outbox, boolean totalOrder) {

  private static final Pattern VALID_GROUP_ID = Pattern.compile("[\\p{Alnum}\\p{Punct}]{1,128}");

  /** The queue of {@code outbox}'s settings, refusing one they name wrongly by its key. */
  static SqsQueue of(OutboxConfig outbox) {
    String url =
        outbox.requiredRelaySetting(
            "queue-url", "the URL of the FIFO queue the SQS relay sends to");
    if (!url.endsWith(".fifo")) {
      throw outbox.invalidRelaySetting(
          "queue-url",
          "expected a FIFO queue (its name ends with .fifo); standard queues do not keep order");
    }
    String limit =
        outbox
            .relaySettings()
            .getOrDefault("max-request-bytes", Integer.toString(SqsRequests.DEFAULT_MAX_BYTES));
    int bytes;
    try {
      bytes = Integer.parseInt(limit);
    } catch (NumberFormatException e) {
      bytes = 0;
    }
    if (bytes < 1024 || bytes > 16 * 1024 * 1024) {
      throw outbox.invalidRelaySetting(
          "max-request-bytes", "expected a whole number of bytes from 1024 to 16777216");
    }
    return new SqsQueue(url, bytes, outbox.name(), outbox.ordering() == Ordering.TOTAL);
  }

  String deduplicationId(Envelope e) {
    return outbox + ":" + e.id();
  }

  String groupId(Envelope e) {
    if (totalOrder) {
      return outbox;
    }
    if (e.groupKey() == null) {
      return deduplicationId(e);
    }
    if (VALID_GROUP_ID.matcher(e.groupKey()).matches()) {
      return e.groupKey();
    }
    return "sha256:" + DigestUtils.sha256Hex(e.groupKey());
  }
}
