package io.outboxer.internal.relay.sqs;

import io.outboxer.spi.Envelope;
import java.util.regex.Pattern;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * The SQS FIFO ids of an outbox's messages. {@code MessageDeduplicationId} is {@code
 * <outbox>:<id>}. {@code MessageGroupId} is the group key when SQS accepts it as one (at most 128
 * characters of ASCII letters, digits and punctuation), else {@code sha256:} and the key's SHA-256
 * in hex; an ungrouped message is independent, so it is its own SQS group (its deduplication id);
 * with total ordering every message goes to one SQS group named after the outbox.
 *
 * @param outbox the outbox name
 * @param totalOrder whether the outbox keeps total order
 */
record SqsIds(String outbox, boolean totalOrder) {

  private static final Pattern VALID_GROUP_ID = Pattern.compile("[\\p{Alnum}\\p{Punct}]{1,128}");

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
