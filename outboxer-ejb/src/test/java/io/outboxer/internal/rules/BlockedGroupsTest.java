package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxer.spi.Envelope;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BlockedGroupsTest {

  private static Envelope e(long id, String group) {
    return new Envelope(id, "o", 0, group, "T", "{}", 1, group);
  }

  @Test
  void theGroupsOfABatchInTheOrderTheyFirstAppear() {
    List<Envelope> batch = List.of(e(1, "b"), e(2, null), e(3, "a"), e(4, "b"));

    assertThat(BlockedGroups.groupsOf(batch)).containsExactly("b", "a");
  }

  @Test
  void rowsBehindTheBlockingMessageOfTheirGroupAreHeldAndEverythingElseIsFree() {
    List<Envelope> batch =
        List.of(e(10, "a"), e(11, "b"), e(12, null), e(13, "a"), e(14, "c"), e(15, "b"));

    // a is blocked from its retrying head 5 (not in the batch); b from its first held row 13.
    BlockedGroups.Split split = BlockedGroups.split(batch, Map.of("a", 5L, "b", 13L));

    assertThat(split.free()).extracting(Envelope::id).containsExactly(11L, 12L, 14L);
    assertThat(split.hold()).containsExactly(10L, 13L, 15L);
    assertThat(split.onlyHeld()).isFalse();
  }

  @Test
  void aBatchOfHeldRowsOnlySaysSoAndAnEmptyOneDoesNot() {
    List<Envelope> batch = List.of(e(10, "a"), e(11, "a"));

    assertThat(BlockedGroups.split(batch, Map.of("a", 1L)).onlyHeld()).isTrue();
    assertThat(BlockedGroups.split(List.of(), Map.of("a", 1L)).onlyHeld()).isFalse();
    assertThat(BlockedGroups.split(batch, Map.of()).free()).isEqualTo(batch);
  }

  @Test
  void aGroupIsBlockedFromItsWaitingHeadOrBehindAHeadDueAgainAndOrphanedWithoutEither() {
    assertThat(new BlockedGroups.Heads(5L, 9L, null).blockedFrom()).isEqualTo(5L);
    assertThat(new BlockedGroups.Heads(5L, null, null).blockedFrom()).isEqualTo(5L);
    assertThat(new BlockedGroups.Heads(null, 9L, 5L).blockedFrom())
        .as("due head goes")
        .isEqualTo(9L);
    assertThat(new BlockedGroups.Heads(null, null, 5L).blockedFrom()).isNull();

    assertThat(new BlockedGroups.Heads(null, 9L, null).orphaned()).isTrue();
    assertThat(new BlockedGroups.Heads(null, 9L, null).blockedFrom()).isNull();
    assertThat(new BlockedGroups.Heads(5L, 9L, null).orphaned()).isFalse();
    assertThat(new BlockedGroups.Heads(null, 9L, 5L).orphaned()).isFalse();
    assertThat(new BlockedGroups.Heads(null, null, null).orphaned()).isFalse();
  }

  @Test
  void ofTheGroupsOfABatchOnlyTheBlockedOnesBlockAndOnlyTheOrphanedOnesAreReleased() {
    Map<String, BlockedGroups.Heads> heads =
        Map.of(
            "waiting", new BlockedGroups.Heads(5L, 9L, null),
            "due", new BlockedGroups.Heads(null, 12L, 7L),
            "orphaned", new BlockedGroups.Heads(null, 20L, null));

    assertThat(BlockedGroups.blockedFrom(heads))
        .containsOnly(Map.entry("waiting", 5L), Map.entry("due", 12L));
    assertThat(BlockedGroups.orphaned(heads)).containsExactly("orphaned");
  }
}
