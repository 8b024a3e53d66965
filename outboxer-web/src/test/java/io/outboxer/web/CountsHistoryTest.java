package io.outboxer.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.outboxer.OutboxCounts;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class CountsHistoryTest {

  private Instant now = Instant.parse("2026-12-03T08:00:00Z");
  private final CountsHistory history =
      new CountsHistory(
          new Clock() {
            @Override
            public Instant instant() {
              return now;
            }

            @Override
            public ZoneId getZone() {
              return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
              return this;
            }
          });

  private static OutboxCounts counts(String outbox, long pending, long dead) {
    return new OutboxCounts(outbox, pending, 0, 0, dead, List.of());
  }

  @Test
  void keepsOneSamplePerOutboxEveryFiveSeconds() {
    history.record(counts("orders", 10, 0));
    now = now.plusSeconds(4);
    history.record(counts("orders", 20, 0));
    history.record(counts("refunds", 1, 1));
    now = now.plusSeconds(1);
    history.record(counts("orders", 30, 1));

    assertThat(history.of("orders"))
        .extracting(CountsHistory.Sample::pending, CountsHistory.Sample::dead)
        .containsExactly(tuple(10L, 0L), tuple(30L, 1L));
    assertThat(history.of("refunds")).hasSize(1);
    assertThat(history.of("payments")).isEmpty();
  }

  @Test
  void forgetsSamplesOlderThanFifteenMinutes() {
    history.record(counts("orders", 1, 0));
    now = now.plus(Duration.ofMinutes(10));
    history.record(counts("orders", 2, 0));
    now = now.plus(Duration.ofMinutes(6));
    history.record(counts("orders", 3, 0));

    assertThat(history.of("orders"))
        .extracting(CountsHistory.Sample::pending)
        .containsExactly(2L, 3L);
  }
}
