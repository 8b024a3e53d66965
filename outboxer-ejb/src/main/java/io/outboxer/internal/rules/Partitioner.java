package io.outboxer.internal.rules;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.commons.codec.digest.MurmurHash3;

/**
 * Maps group keys to partitions. The hash is MurmurHash3 (x86, 32 bit, seed 0) of the key's UTF-8
 * bytes: documented and stable across JVMs and releases, because the partition is stored on every
 * row and must come out the same on every server sharing the database.
 */
public final class Partitioner {

  private Partitioner() {}

  /**
   * The partition of {@code groupKey} among {@code partitions}. Ungrouped messages ({@code null})
   * are spread at random: they have no order to keep.
   */
  public static int partitionOf(String groupKey, int partitions) {
    if (partitions == 1) {
      return 0;
    }
    if (groupKey == null) {
      return ThreadLocalRandom.current().nextInt(partitions);
    }
    return Math.floorMod(hash32(groupKey), partitions);
  }

  /** MurmurHash3 x86 32-bit, seed 0, of the UTF-8 bytes of {@code key}. */
  public static int hash32(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return MurmurHash3.hash32x86(bytes, 0, bytes.length, 0);
  }
}
