package io.outboxer.internal.relay.sqs;

import io.outboxer.internal.relay.support.MessageAttributes;
import io.outboxer.spi.Envelope;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How the SQS relay cuts a batch into {@code SendMessageBatch} requests: in rounds that hold at
 * most one message per ordering scope, each round in requests within SQS's limits.
 */
final class SqsRequests {

  /** SQS's limit on the entries of one {@code SendMessageBatch}. */
  static final int MAX_ENTRIES = 10;

  /**
   * The size of one request that every SQS queue accepts (256 KiB), the default of {@code
   * relay.sqs.max-request-bytes}.
   */
  static final int DEFAULT_MAX_BYTES = 256 * 1024;

  private SqsRequests() {}

  /**
   * The batch in rounds: round k holds the k-th message of every ordering scope, in id order;
   * unscoped messages are independent and all go into the first round.
   */
  static List<List<Envelope>> rounds(List<Envelope> batch) {
    List<List<Envelope>> rounds = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (Envelope e : batch) {
      int round =
          e.orderingScope() == null ? 0 : seen.merge(e.orderingScope(), 1, Integer::sum) - 1;
      while (rounds.size() <= round) {
        rounds.add(new ArrayList<>());
      }
      rounds.get(round).add(e);
    }
    return rounds;
  }

  /** {@code round} cut into requests within SQS's entry and size limits, in order. */
  static List<List<Envelope>> requests(List<Envelope> round, int maxBytes) {
    List<List<Envelope>> requests = new ArrayList<>();
    List<Envelope> current = new ArrayList<>();
    int bytes = 0;
    for (Envelope e : round) {
      int size = size(e);
      if (!current.isEmpty() && (current.size() == MAX_ENTRIES || bytes + size > maxBytes)) {
        requests.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(e);
      bytes += size;
    }
    if (!current.isEmpty()) {
      requests.add(current);
    }
    return requests;
  }

  /** What SQS counts towards a request's size: the body and the attributes' names and values. */
  private static int size(Envelope e) {
    int attributes =
        MessageAttributes.ID.length()
            + 20
            + MessageAttributes.OUTBOX.length()
            + e.outbox().length()
            + MessageAttributes.TYPE.length()
            + utf8(e.type())
            + MessageAttributes.ATTEMPT.length()
            + 11
            + (e.groupKey() == null ? 0 : MessageAttributes.GROUP.length() + utf8(e.groupKey()))
            + (e.traceParent() == null
                ? 0
                : MessageAttributes.TRACE_PARENT.length() + e.traceParent().length());
    return utf8(e.payload()) + attributes;
  }

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
