package io.outboxer.internal.relay.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.internal.relay.kafka.TransactionRounds.Cause;
import io.outboxer.internal.relay.kafka.TransactionRounds.Failure;
import io.outboxer.internal.relay.kafka.TransactionRounds.Round;
import io.outboxer.internal.relay.support.Settlement;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class TransactionRoundsTest {

  private final AtomicLong nanos = new AtomicLong();
  private final Deadline budget = Deadline.in(Duration.ofSeconds(10), nanos::get);
  private final List<List<Long>> committed = new ArrayList<>();
  private int transactions;

  /** 40 messages of 8 groups, interleaved: g0 1, g1 2, ..., g7 8, g0 9, ... */
  private static List<Envelope> batch() {
    return LongStream.rangeClosed(1, 40)
        .mapToObj(
            id -> new Envelope(id, "o", 0, "g" + (id - 1) % 8, "T", "{}", 1, "g" + (id - 1) % 8))
        .toList();
  }

  /**
   * A Kafka that refuses {@code bad} records: when one is in a transaction, every record fails, the
   * bad ones as {@code badCause}, the others as {@code othersCause}.
   */
  private TransactionRounds.Transaction kafka(Set<Long> bad, Cause badCause, Cause othersCause) {
    return records -> {
      transactions++;
      nanos.addAndGet(Duration.ofMillis(10).toNanos());
      if (records.stream().noneMatch(e -> bad.contains(e.id()))) {
        committed.add(records.stream().map(Envelope::id).toList());
        return new Round(true, Map.of());
      }
      Map<Long, Failure> failures = new HashMap<>();
      for (Envelope e : records) {
        boolean isBad = bad.contains(e.id());
        failures.put(
            e.id(),
            new Failure(
                isBad ? "too large: " + e.id() : "error state", isBad ? badCause : othersCause));
      }
      return new Round(false, failures);
    };
  }

  private static List<Long> confirmed(DeliveryReport report) {
    return report.confirmed().stream().sorted().toList();
  }

  @Test
  void aRecordTheProducerRefusedIsChargedAloneAndTheRestGoesInTheNextTransaction() {
    DeliveryReport report = deliver(kafka(Set.of(11L), Cause.OWN, Cause.SHARED));

    assertThat(report.failed()).containsOnly(Map.entry(11L, "too large: 11"));
    // 11 is g2's second message: g2's later messages (19, 27, 35) wait, everything else goes.
    assertThat(confirmed(report))
        .containsExactlyElementsOf(
            LongStream.rangeClosed(1, 40)
                .filter(id -> id != 11 && id != 19 && id != 27 && id != 35)
                .boxed()
                .toList());
    assertThat(transactions).isEqualTo(2);
  }

  @Test
  void aRefusalNoRecordOwnsIsPinnedByHalvingInPrefixesAndOnlyItsRecordIsCharged() {
    DeliveryReport report = deliver(kafka(Set.of(30L), Cause.SHARED, Cause.SHARED));

    assertThat(report.failed()).containsOnlyKeys(30L);
    assertThat(confirmed(report)).doesNotContain(30L, 38L).hasSize(38);
    // Every committed transaction is a prefix of what was left, so each group stays in order.
    List<Long> order = committed.stream().flatMap(List::stream).toList();
    for (int g = 0; g < 8; g++) {
      int group = g;
      assertThat(order.stream().filter(id -> (id - 1) % 8 == group).toList()).isSorted();
    }
    assertThat(transactions).isLessThanOrEqualTo(2 * 6 + 2);
  }

  @Test
  void severalRefusalsInOneBatchAreEachChargedAlone() {
    DeliveryReport report = deliver(kafka(Set.of(3L, 4L, 21L), Cause.SHARED, Cause.SHARED));

    // 3 heads g2, 4 heads g3, 21 is g4's third: each stops the rest of its group only.
    assertThat(report.failed()).containsOnlyKeys(3L, 4L, 21L);
    assertThat(report.confirmed())
        .hasSize(40 - 3 - 4 - 4 - 2)
        .contains(5L, 13L)
        .doesNotContain(11L, 12L, 29L, 37L);
  }

  @Test
  void aBatchFailedForNoRecordsSakeChargesNothingAndSaysTheDestinationIsUnavailable() {
    TransactionRounds.Transaction down =
        records -> {
          Map<Long, Failure> failures = new HashMap<>();
          records.forEach(
              e -> failures.put(e.id(), new Failure("TimeoutException", Cause.COLLATERAL)));
          return new Round(false, failures);
        };

    assertThatThrownBy(() -> deliver(down))
        .isInstanceOf(KafkaUnavailableException.class)
        .hasMessage(
            "Kafka failed the batch, no record refused for its content: [TimeoutException]");
  }

  @Test
  void whatWasSettledBeforeTheDestinationFailedIsReportedAndTheRestStaysUnreported() {
    boolean[] down = {false};
    TransactionRounds.Transaction halfway =
        records -> {
          if (down[0]) {
            return new Round(
                false, Map.of(records.get(0).id(), new Failure("fenced", Cause.COLLATERAL)));
          }
          down[0] = true;
          return kafka(Set.of(5L), Cause.OWN, Cause.COLLATERAL).send(records);
        };

    DeliveryReport report = deliver(halfway);

    assertThat(report.failed()).containsOnlyKeys(5L);
    assertThat(report.confirmed()).isEmpty();
  }

  @Test
  void noTransactionStartsOnceTheDeadlinePassed() {
    nanos.addAndGet(Duration.ofSeconds(10).toNanos());

    DeliveryReport report = deliver(kafka(Set.of(), Cause.OWN, Cause.OWN));

    assertThat(transactions).isZero();
    assertThat(report.confirmed()).isEmpty();
    assertThat(report.failed()).isEmpty();
  }

  /** Delivers {@link #batch()} with {@code kafka} and reports what was settled. */
  private DeliveryReport deliver(TransactionRounds.Transaction kafka) {
    Settlement report = new Settlement();
    TransactionRounds.deliver(batch(), kafka, budget, report);
    return report.end();
  }
}
