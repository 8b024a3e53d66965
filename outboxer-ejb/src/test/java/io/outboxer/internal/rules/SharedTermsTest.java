package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.internal.rules.SharedTerms.Keep;
import io.outboxer.internal.rules.SharedTerms.Record;
import io.outboxer.internal.rules.SharedTerms.Refuse;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

class SharedTermsTest {

  private static final SharedTerms GROUP_4 = SharedTerms.of(4, Ordering.GROUP, true, false);
  private static final String GROUP = "ordering=group,wait-for-writers=true,serialize-writes=false";
  private static final LongSupplier EMPTY = () -> 0;
  private static final LongSupplier NOT_ASKED =
      () -> {
        throw new AssertionError("the rows were counted");
      };

  @Test
  void theSettingsAreRecordedAsKeyValuePairsInAFixedOrder() {
    assertThat(GROUP_4.settingsText()).isEqualTo(GROUP);
    assertThat(SharedTerms.of(1, Ordering.TOTAL, false, true).settingsText())
        .isEqualTo("ordering=total,wait-for-writers=false,serialize-writes=true");
    assertThat(SharedTerms.parseSettings(GROUP)).isEqualTo(GROUP_4.settings());
  }

  @Test
  void theSameTermsAreKeptWhoeverRuns() {
    assertThat(GROUP_4.judge("orders", 4, GROUP, 3, NOT_ASKED, true)).isEqualTo(new Keep());
    assertThat(GROUP_4.judge("orders", 4, GROUP, 0, NOT_ASKED, false)).isEqualTo(new Keep());
  }

  @Test
  void aRecordOfAnEarlierVersionWithoutSettingsTakesThisServers() {
    assertThat(GROUP_4.judge("orders", 4, null, 2, NOT_ASKED, false)).isEqualTo(new Record());
  }

  @Test
  void otherSettingsWhileAnotherServerDeliversAreRefusedNamingEachKey() {
    SharedTerms total = SharedTerms.of(1, Ordering.TOTAL, false, false);

    SharedTerms.Verdict verdict = total.judge("orders", 4, GROUP, 2, NOT_ASKED, true);

    assertThat(verdict)
        .isEqualTo(
            new Refuse(
                "OUTBOXER-1104 outbox 'orders' is delivered by 2 other server(s) heard from within"
                    + " the lease ttl, whose terms differ from this server's:"
                    + " outboxer.outbox.orders.partitions is 1 here, 4 there;"
                    + " outboxer.outbox.orders.ordering is total here, group there;"
                    + " outboxer.outbox.orders.wait-for-writers is false here, true there. Start"
                    + " this server with their settings, or stop them all first (a server stopped"
                    + " by a kill is heard from for one lease ttl after it)"));
  }

  @Test
  void aChangedPartitionCountWhileAnotherServerDeliversIsRefusedEvenWithoutRows() {
    SharedTerms eight = SharedTerms.of(8, Ordering.GROUP, true, false);

    assertThat(eight.judge("orders", 4, GROUP, 1, NOT_ASKED, true))
        .isInstanceOfSatisfying(
            Refuse.class,
            r ->
                assertThat(r.reason())
                    .startsWith("OUTBOXER-1104 outbox 'orders' is delivered by 1 other server(s)")
                    .contains("outboxer.outbox.orders.partitions is 8 here, 4 there"));
  }

  @Test
  void aChangedPartitionCountAloneIsRecordedOnceTheOutboxIsEmpty() {
    SharedTerms eight = SharedTerms.of(8, Ordering.GROUP, true, false);

    assertThat(eight.judge("orders", 4, GROUP, 0, EMPTY, true)).isEqualTo(new Record());
    assertThat(eight.judge("orders", 4, GROUP, 0, () -> 12, true))
        .isEqualTo(
            new Refuse(
                "OUTBOXER-1101 outbox 'orders' holds 12 messages hashed over 4 partitions, but"
                    + " outboxer.outbox.orders.partitions is now 8: its workers do not start until"
                    + " the change is undone or the outbox is drained (pending and dead messages"
                    + " delivered or discarded)"));
  }

  @Test
  void otherSettingsAloneAreRecordedByADeliveringServerAndRefusedToOneThatOnlyPublishes() {
    SharedTerms serialized = SharedTerms.of(4, Ordering.GROUP, true, true);

    assertThat(serialized.judge("orders", 4, GROUP, 0, NOT_ASKED, true)).isEqualTo(new Record());
    assertThat(serialized.judge("orders", 4, GROUP, 0, NOT_ASKED, false))
        .isEqualTo(
            new Refuse(
                "OUTBOXER-1104 outbox 'orders' was last delivered with other terms than this"
                    + " server's, which only publishes (outboxer.delivery.enabled=false) and so"
                    + " never changes them: outboxer.outbox.orders.serialize-writes is true here,"
                    + " false there"));
  }
}
