package io.outboxer.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class PartitionerTest {

  @Test
  void hashIsMurmur3X86ThirtyTwoOfTheUtf8Bytes() {
    // Reference values of MurmurHash3_x86_32 with seed 0: these must never change, because the
    // partition of every stored row was computed with them.
    assertThat(Partitioner.hash32("")).isEqualTo(0);
    assertThat(Partitioner.hash32("hello")).isEqualTo(0x248bfa47);
    assertThat(Partitioner.hash32("order:42")).isEqualTo(Partitioner.hash32("order:42"));
  }

  @Test
  void partitionsOfKnownKeysAreStable() {
    assertThat(Partitioner.partitionOf("hello", 8)).isEqualTo(Math.floorMod(0x248bfa47, 8));
    assertThat(Partitioner.partitionOf("anything", 1)).isZero();
  }

  @Property
  void aGroupAlwaysMapsToTheSamePartitionInRange(
      @ForAll String group, @ForAll @IntRange(min = 1, max = 1024) int partitions) {
    int p = Partitioner.partitionOf(group, partitions);
    assertThat(p)
        .isBetween(0, partitions - 1)
        .isEqualTo(Partitioner.partitionOf(group, partitions));
  }

  @Property
  void ungroupedMessagesLandInRange(@ForAll @IntRange(min = 1, max = 64) int partitions) {
    assertThat(Partitioner.partitionOf(null, partitions)).isBetween(0, partitions - 1);
  }
}
