package io.outboxer.internal.relay.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.spi.Envelope;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

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

    List<List<Envelope>> rounds = SqsFifoRelay.rounds(batch);

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
    for (List<Envelope> round : SqsFifoRelay.rounds(batch)) {
      for (List<Envelope> request : SqsFifoRelay.requests(round)) {
        assertThat(request).hasSizeBetween(1, SqsFifoRelay.MAX_ENTRIES);
        assertThat(request.size() == 1 || request.size() * payloadSize <= SqsFifoRelay.MAX_BYTES)
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
    SqsFifoRelay relay = new SqsFifoRelay(null, "https://sqs/1/orders.fifo", "orders", false);

    assertThat(relay.groupId(message(1, "customer-42", "{}"), "orders:1")).isEqualTo("customer-42");
    assertThat(relay.groupId(message(2, "kunde müller", "{}"), "orders:2"))
        .isEqualTo(
            "sha256:" + org.apache.commons.codec.digest.DigestUtils.sha256Hex("kunde müller"));
    assertThat(relay.groupId(message(3, "k".repeat(129), "{}"), "orders:3")).startsWith("sha256:");
    assertThat(relay.groupId(message(4, null, "{}"), "orders:4")).isEqualTo("orders:4");
  }

  @Test
  void withTotalOrderingTheWholeOutboxIsOneSqsGroup() {
    SqsFifoRelay relay = new SqsFifoRelay(null, "https://sqs/1/orders.fifo", "orders", true);

    assertThat(relay.groupId(message(1, "customer-42", "{}"), "orders:1")).isEqualTo("orders");
    assertThat(relay.groupId(message(2, null, "{}"), "orders:2")).isEqualTo("orders");
  }
}
