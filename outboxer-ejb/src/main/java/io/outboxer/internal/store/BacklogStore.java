package io.outboxer.internal.store;

import java.util.Map;

/** The backlog of every outbox, read in one aggregate over the message table. */
public interface BacklogStore {

  /** Per outbox that holds any row, its backlog; outboxes missing from the map hold nothing. */
  Map<String, Backlog> backlog();
}
