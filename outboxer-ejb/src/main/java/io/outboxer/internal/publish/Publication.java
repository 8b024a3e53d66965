package io.outboxer.internal.publish;

import io.outboxer.OutboxException;
import io.outboxer.OutboxMessage;
import io.outboxer.Outboxed;
import jakarta.json.bind.Jsonb;

/**
 * What a publish stores of a message, and the refusals that need no container: the outbox its type
 * names, its group key within the limit, its payload as JSON-B writes it. The {@link
 * io.outboxer.Outbox} bean and the test kit's recording outbox judge a message by these same rules.
 *
 * @param outbox the outbox the message's type names ({@link Outboxed}), {@code default} without
 * @param groupKey the message's group key, or null
 * @param type the message's class name
 * @param payload the message as JSON
 */
public record Publication(String outbox, String groupKey, String type, String payload) {

  /** The longest group key. */
  public static final int MAX_GROUP_KEY = 500;

  /** The outbox of a message whose type has no {@link Outboxed}. */
  public static final String DEFAULT_OUTBOX = "default";

  /**
   * Refuses a null message ({@code OUTBOXER-2002}).
   *
   * @return the message's class name
   */
  public static String typeOf(OutboxMessage message) {
    if (message == null) {
      throw new OutboxException("OUTBOXER-2002 cannot publish null: pass an OutboxMessage");
    }
    return message.getClass().getName();
  }

  /** The outbox that messages of {@code type} go to. */
  public static String outboxOf(Class<?> type) {
    Outboxed outboxed = type.getAnnotation(Outboxed.class);
    return outboxed == null ? DEFAULT_OUTBOX : outboxed.value();
  }

  /**
   * What publishing {@code message} stores, or the refusal: a null message ({@code OUTBOXER-2002}),
   * a group key over {@link #MAX_GROUP_KEY} characters ({@code OUTBOXER-2004}), a message JSON-B
   * cannot write ({@code OUTBOXER-2003}).
   */
  public static Publication of(OutboxMessage message, Jsonb jsonb) {
    String type = typeOf(message);
    String group = message.groupKey();
    if (group != null && group.length() > MAX_GROUP_KEY) {
      throw new OutboxException(
          "OUTBOXER-2004 group key of "
              + type
              + " is "
              + group.length()
              + " characters long; the limit is "
              + MAX_GROUP_KEY);
    }
    String payload;
    try {
      payload = jsonb.toJson(message);
    } catch (RuntimeException e) {
      throw new OutboxException(
          "OUTBOXER-2003 JSON-B cannot serialize " + type + ": " + e.getMessage(), e);
    }
    return new Publication(outboxOf(message.getClass()), group, type, payload);
  }
}
