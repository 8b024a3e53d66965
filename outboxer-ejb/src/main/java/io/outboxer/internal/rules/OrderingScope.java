package io.outboxer.internal.rules;

import java.nio.charset.StandardCharsets;
import org.apache.commons.codec.digest.MurmurHash3;

/**
 * The ordering scope of a message: the set of messages whose order it must keep. With group
 * ordering it is the message's group key (none for an ungrouped message), with total ordering the
 * whole outbox, with no ordering none. Relays stop a scope at its first failure; publishers that
 * serialize writes lock the scope.
 */
public final class OrderingScope {

  /** The one scope of every message of a total-ordering outbox. */
  static final String WHOLE_OUTBOX = "";

  private OrderingScope() {}

  /** True when {@code scope} is the whole outbox's: the message is of a total-ordering outbox. */
  public static boolean isWholeOutbox(String scope) {
    return WHOLE_OUTBOX.equals(scope);
  }

  /**
   * The scope of a message of {@code groupKey} under {@code ordering}, or null when it has none.
   */
  public static String of(Ordering ordering, String groupKey) {
    return switch (ordering) {
      case GROUP -> groupKey;
      case TOTAL -> WHOLE_OUTBOX;
      case NONE -> null;
    };
  }

  /**
   * A 64-bit key for a database advisory lock on the scope of a message of {@code groupKey} in
   * {@code outbox}, or null when the message has no scope: the first half of MurmurHash3 x64
   * 128-bit of {@code outbox + '\0' + scope}.
   */
  public static Long lockKey(String outbox, Ordering ordering, String groupKey) {
    String scope = of(ordering, groupKey);
    if (scope == null) {
      return null;
    }
    byte[] bytes = (outbox + '\0' + scope).getBytes(StandardCharsets.UTF_8);
    return MurmurHash3.hash128x64(bytes)[0];
  }
}
