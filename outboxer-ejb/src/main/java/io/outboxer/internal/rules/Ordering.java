package io.outboxer.internal.rules;

/** How an outbox orders its messages ({@code outboxer.outbox.<name>.ordering}). */
public enum Ordering {
  /** Per group key; a failing message holds back its own group only. The default. */
  GROUP,
  /** Across the whole outbox; a failing message holds back everything behind it. One partition. */
  TOTAL,
  /** No order; a failing message holds back nothing. */
  NONE
}
