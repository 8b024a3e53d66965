package io.outboxer.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.OutboxException;
import io.outboxer.OutboxMessage;
import io.outboxer.Outboxed;
import io.outboxer.testkit.RecordingOutbox.Published;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RecordingOutboxTest {

  /** A message of the outbox "orders", grouped by its order. */
  @Outboxed("orders")
  public static class OrderPaid implements OutboxMessage {
    private final String orderId;

    public OrderPaid(String orderId) {
      this.orderId = orderId;
    }

    public String getOrderId() {
      return orderId;
    }

    @Override
    public String groupKey() {
      return orderId;
    }
  }

  /** A message of the outbox "default", with no group. */
  public static class Audit implements OutboxMessage {
    public String what = "login";
  }

  /** A message JSON-B cannot write: its getter throws. */
  public static class Broken implements OutboxMessage {
    public String getValue() {
      throw new IllegalStateException("no value");
    }
  }

  private final RecordingOutbox outbox = new RecordingOutbox("orders", "default");

  @AfterEach
  void close() throws Exception {
    outbox.close();
  }

  @Test
  void itKeepsWhatWasPublishedInOrderAsTheRealOutboxStoresIt() {
    long first = outbox.publish(new OrderPaid("order-42"));
    long second = outbox.publish(new Audit());

    assertThat(first).isEqualTo(1);
    assertThat(second).isEqualTo(2);
    assertThat(outbox.published())
        .containsExactly(
            new Published(
                1,
                "orders",
                "order-42",
                OrderPaid.class.getName(),
                "{\"orderId\":\"order-42\"}",
                outbox.published().get(0).message()),
            new Published(
                2,
                "default",
                null,
                Audit.class.getName(),
                "{\"what\":\"login\"}",
                outbox.published().get(1).message()));
    assertThat(outbox.publishedTo("orders")).extracting(Published::id).containsExactly(1L);
    assertThat(outbox.messages(OrderPaid.class))
        .extracting(OrderPaid::getOrderId)
        .containsExactly("order-42");

    outbox.clear();
    assertThat(outbox.published()).isEmpty();
    assertThat(outbox.publish(new Audit())).isEqualTo(1);
  }

  @Test
  void itRefusesWhatTheRealOutboxRefusesAndKeepsNothingOfIt() {
    assertThatThrownBy(() -> outbox.publish(null))
        .isInstanceOf(OutboxException.class)
        .hasMessage("OUTBOXER-2002 cannot publish null: pass an OutboxMessage");
    assertThatThrownBy(() -> outbox.publish(new OrderPaid("x".repeat(501))))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-2004 group key of "
                + OrderPaid.class.getName()
                + " is 501 characters long; the limit is 500");
    assertThatThrownBy(() -> outbox.publish(new Broken()))
        .isInstanceOf(OutboxException.class)
        .hasMessageStartingWith("OUTBOXER-2003 JSON-B cannot serialize " + Broken.class.getName());
    assertThatThrownBy(() -> new RecordingOutbox("orders").publish(new Audit()))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-2005 unknown outbox 'default': configure it with"
                + " outboxer.outbox.default.relay (configured outboxes: [orders])");

    assertThat(outbox.published()).isEmpty();
  }

  @Test
  void withoutNamedOutboxesItAcceptsAny() throws Exception {
    try (RecordingOutbox any = new RecordingOutbox()) {
      any.publish(new OrderPaid("a"));
      any.publish(new Audit());

      assertThat(any.published())
          .extracting(Published::outbox)
          .containsExactly("orders", "default");
    }
  }
}
