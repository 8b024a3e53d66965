package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OrderingScopeTest {

  @Test
  void theScopeFollowsTheOrdering() {
    assertThat(OrderingScope.of(Ordering.GROUP, "order:42")).isEqualTo("order:42");
    assertThat(OrderingScope.of(Ordering.GROUP, null)).as("ungrouped: independent").isNull();
    assertThat(OrderingScope.of(Ordering.TOTAL, "order:42")).isEqualTo(OrderingScope.WHOLE_OUTBOX);
    assertThat(OrderingScope.of(Ordering.TOTAL, null)).isEqualTo(OrderingScope.WHOLE_OUTBOX);
    assertThat(OrderingScope.of(Ordering.NONE, "order:42")).isNull();
  }

  @Test
  void lockKeysSeparateOutboxesAndScopes() {
    assertThat(OrderingScope.lockKey("a", Ordering.GROUP, "x"))
        .isNotEqualTo(OrderingScope.lockKey("b", Ordering.GROUP, "x"))
        .isNotEqualTo(OrderingScope.lockKey("a", Ordering.GROUP, "y"))
        .isEqualTo(OrderingScope.lockKey("a", Ordering.GROUP, "x"));
  }

  @Test
  void totalOrderingLocksTheWholeOutboxAndMessagesWithoutScopeLockNothing() {
    assertThat(OrderingScope.lockKey("a", Ordering.TOTAL, "x"))
        .isEqualTo(OrderingScope.lockKey("a", Ordering.TOTAL, null))
        .isEqualTo(OrderingScope.lockKey("a", Ordering.TOTAL, "y"));
    assertThat(OrderingScope.lockKey("a", Ordering.GROUP, null)).isNull();
    assertThat(OrderingScope.lockKey("a", Ordering.NONE, "x")).isNull();
  }
}
