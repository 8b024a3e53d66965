package io.outboxer.internal.store;

/**
 * The statements Outboxer runs, by the name each database's {@code sql/<database>/statements.sql}
 * gives it. Each file holds whole statements; nothing is glued together in code.
 */
public enum Sql {
  /**
   * Takes a transaction-scoped lock on {@code :key}; absent where writers are serialized anyway.
   */
  GROUP_LOCK(true),
  /**
   * Inserts a message as its partition's writer in flight, first taking the locks commit-safe order
   * needs where the transaction does not hold them (ADR 0010); absent likewise.
   */
  INSERT_ANNOUNCED(true),
  /** The last id the table's identity gave (ADR 0010); absent likewise. */
  LAST_ID(true),
  /** The smallest id bound locked by a holder of a partition's lock (ADR 0010). */
  IN_FLIGHT(true),
  /** Per partition, the smallest id in flight and its transaction (ADR 0010). */
  OLDEST_IN_FLIGHT(true),
  /**
   * How many ids the table's identity hands out at once to a session, which commit-safe order needs
   * to be 1 (ADR 0010); absent likewise.
   */
  ID_CACHE(true),
  /** The isolation level of the transaction, which commit-safe order needs to read committed. */
  ISOLATION_LEVEL(true),
  /**
   * Lets the batch read's transaction commit without waiting for the WAL flush (ADR 0015); absent
   * where every commit flushes.
   */
  READ_COMMITS_UNFLUSHED(true),
  /**
   * Has each later statement of the transaction planned for its parameters and by index, whatever
   * the table's statistics say: never on a plan cached or estimated while the table was much
   * smaller (ADR 0017); absent where plans do not follow the table's size.
   */
  PLAN_BY_INDEX(true),
  /** Bounds the engine transaction's lock waits, in milliseconds ({@link EngineLockTimeout}). */
  ENGINE_LOCK_TIMEOUT(true),
  /**
   * Whether the outbox table's statistics count far fewer rows than changed since they were taken
   * and this session may take them again (ADR 0017); absent where plans do not follow the table's
   * size.
   */
  STATISTICS_STALE(true),
  /** Waits for the turn, among all servers, to take the outbox table's statistics again. */
  STATISTICS_TURN(true),
  /** Takes the outbox table's statistics again. */
  ANALYZE_OUTBOX(true),
  PROMOTE_DUE,
  HEAD_WAITS,
  READ_READY,
  /** READ_READY from a given id on (ADR 0014); absent where reads always start at the first row. */
  READ_READY_FROM(true),
  /**
   * READ_READY_FROM leaving out the rows of given blocked groups (ADR 0016); absent where reads
   * always start at the first row.
   */
  READ_READY_PAST_BLOCKED(true),
  /**
   * Whether the partition has a blocked group: a retrying head or held rows. Asked once per batch
   * read's transaction, before the first lookup of its groups' heads (BLOCKED_FROM), which a
   * partition without one never needs.
   */
  PARTITION_BLOCKED,
  BLOCKED_FROM,
  HOLD_ROWS,
  FENCE,
  /**
   * FENCE that also returns the partition's repair count (ADR 0014); absent where reads always
   * start at the first row.
   */
  READ_FENCE(true),
  DELETE_ROWS,
  FAIL_DEAD,
  FAIL_RETRY,
  RELEASE_GROUP,
  RELEASE_OUTBOX_HELD,
  /**
   * Raises the repair count of a message's partition, waiting for its worker's transaction (ADR
   * 0014): a repair's first statement, before it reads the message.
   */
  MARK_REPAIR_OF_MESSAGE,
  /** Raises the repair count of one partition: the one a group's rows are hashed to. */
  MARK_REPAIR_OF_PARTITION,
  /** Raises the repair count of every partition of an outbox. */
  MARK_REPAIR_ALL,
  INSERT_OUTBOX,
  RECORDED_PARTITIONS,
  /** An outbox's recorded partition count and shared settings ({@code SharedTerms}). */
  RECORDED_OUTBOX,
  COUNT_OUTBOX_ROWS,
  UPDATE_OUTBOX,
  INSERT_LEASE,
  ACQUIRE_LEASE,
  LEASE_EPOCH,
  RENEW_LEASE,
  RELEASE_LEASE,
  HEARTBEAT,
  FORGET_NODES,
  COUNT_NODES,
  COUNT_OTHER_NODES,
  LEAVE,
  COUNT_BY_STATE,
  FIND_MESSAGE,
  REVIVE_ALL_DEAD,
  REVIVE_DEAD,
  REVIVE_DEAD_GROUP,
  DELETE_MESSAGE,
  LIST_LEASES,
  PAGE_MESSAGES,
  GROUP_FAILING,
  RETRY_GROUP_NOW,
  /**
   * Waits for and takes the session's lock on applying the schema, so that servers starting
   * together apply it one after the other; absent where one server owns the database.
   */
  SCHEMA_LOCK(true),
  /** Releases the lock SCHEMA_LOCK took; absent likewise. */
  SCHEMA_UNLOCK(true),
  /** Adds the column of trace contexts to a message table created before it existed. */
  ADD_TRACE_PARENT,
  /** Adds the repair count to a lease table created before it existed. */
  ADD_LEASE_REPAIRS,
  /** Adds {@code outboxer_outbox.terms} to a table of an earlier version. */
  ADD_OUTBOX_TERMS,
  /** Per outbox: pending and dead rows, the oldest pending row's creation, held groups, now. */
  BACKLOG,
  /** Records a consumer's claim of a message id in its group, if greater than the last one. */
  INBOX_CLAIM;

  private final boolean optional;

  Sql() {
    this(false);
  }

  Sql(boolean optional) {
    this.optional = optional;
  }

  /** True when a database may leave the statement out. */
  public boolean optional() {
    return optional;
  }
}
