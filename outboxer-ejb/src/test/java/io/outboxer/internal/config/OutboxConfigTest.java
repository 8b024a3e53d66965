package io.outboxer.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.internal.rules.Ordering;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutboxConfigTest {

  private static OutboxConfig outbox(Ordering ordering, boolean serializeWrites) {
    return new OutboxConfig(
        "orders",
        ordering,
        1,
        0,
        Duration.ofSeconds(1),
        Duration.ofSeconds(60),
        100,
        serializeWrites,
        true,
        "jms",
        Map.of());
  }

  @Test
  void anOutboxThatWaitsForWritersIsRefusedWhereTheDatabaseLacksWhatThatNeedsNamingTheSetting() {
    String refusal =
        outbox(Ordering.GROUP, false)
            .commitOrderRefusal(List.of("the identity caches 50 ids", "repeatable read"));

    assertThat(refusal)
        .isEqualTo(
            "OUTBOXER-1103 outbox 'orders' keeps each group's order without serializing its"
                + " writers (outboxer.outbox.orders.wait-for-writers=true), which needs what this"
                + " database does not give: the identity caches 50 ids; repeatable read. Its"
                + " workers do not start and publishing to it is refused until that is fixed, or"
                + " the outbox sets serialize-writes=true or wait-for-writers=false");
  }

  @Test
  void anOutboxThatDoesNotWaitForWritersOrADatabaseThatLacksNothingIsNotRefused() {
    List<String> problems = List.of("the identity caches 50 ids");

    assertThat(outbox(Ordering.GROUP, true).commitOrderRefusal(problems)).isNull();
    assertThat(outbox(Ordering.NONE, false).commitOrderRefusal(problems)).isNull();
    assertThat(outbox(Ordering.GROUP, false).commitOrderRefusal(List.of())).isNull();
  }
}
