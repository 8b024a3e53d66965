package io.outboxer.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LedgerTest {

  private final Ledger ledger = new Ledger();

  @Test
  void aConsumerLogThatMatchesTheLedgerShowsNothing() {
    ledger.committed(1, "a");
    ledger.committed(2, "b");
    ledger.committed(3, "a");
    ledger.delivered(List.of(d(2, "b"), d(1, "a"), d(3, "a")));

    assertThat(ledger.allRead()).isTrue();
    assertThat(ledger.check()).isEqualTo(new Ledger.Check(List.of(), List.of(), List.of(), 0, 0));
  }

  @Test
  void aMessageNeverReadIsLostAndTheLedgerIsNotAllRead() {
    ledger.committed(1, "a");
    ledger.committed(2, "a");
    ledger.delivered(List.of(d(1, "a")));

    assertThat(ledger.allRead()).isFalse();
    assertThat(ledger.check().lost()).containsExactly(2L);
  }

  @Test
  void aMessageReadAfterALaterOneOfItsGroupIsReorderedButAReplayIsADuplicate() {
    for (long id = 1; id <= 4; id++) {
      ledger.committed(id, "a");
    }
    // 1 2 | 1 2 again (a batch delivered twice) | 4 before 3.
    ledger.delivered(List.of(d(1, "a"), d(2, "a"), d(1, "a"), d(2, "a"), d(4, "a"), d(3, "a")));

    Ledger.Check check = ledger.check();
    assertThat(check.reordered()).containsExactly(3L);
    assertThat(check.duplicates()).isEqualTo(2);
    assertThat(check.lost()).isEmpty();
  }

  @Test
  void aRecordOfALaterAttemptIsChargedAndAnUnknownIdIsUnexpected() {
    ledger.committed(1, "a");
    ledger.delivered(List.of(new Ledger.Delivery(1, "a", 2), d(7, "b")));

    Ledger.Check check = ledger.check();
    assertThat(check.charged()).isEqualTo(1);
    assertThat(check.unexpected()).containsExactly(7L);
  }

  private static Ledger.Delivery d(long id, String group) {
    return new Ledger.Delivery(id, group, 1);
  }
}
