package io.outboxer.it.support;

import io.outboxer.internal.store.RowState;

/**
 * Writes rows of {@code outboxer_message} as a publish would (type {@code T}, payload {@code {}}),
 * straight through SQL, for tests that set up what the engine then meets: the one place the tests
 * write message rows.
 */
public final class MessageRows {

  private MessageRows() {}

  /** Inserts one ready message of {@code group} (null: ungrouped) into partition 0; its id. */
  public static long insert(String outbox, String group) {
    return insert(outbox, group, RowState.READY, 0);
  }

  /** Inserts one message of {@code group} into partition 0, in {@code state}; its id. */
  public static long insert(String outbox, String group, RowState state, int attempts) {
    Sql.update(
        "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload,"
            + " state, attempts) values (?, 0, ?, 'T', '{}', ?, ?)",
        outbox,
        group,
        state.code(),
        attempts);
    return Sql.number("select max(id) from outboxer_message where outbox = ?", outbox);
  }

  /** Inserts {@code count} ready messages of {@code group} (null: ungrouped) into partition 0. */
  public static void insertMany(String outbox, String group, int count) {
    insertGroupedBy(outbox, group == null ? "null" : "'" + group.replace("'", "''") + "'", count);
  }

  /**
   * Inserts {@code count} ready messages into partition 0 in one statement, the group of the {@code
   * g}th (from 1) given by the SQL expression {@code key} over {@code g}.
   */
  public static void insertGroupedBy(String outbox, String key, int count) {
    String select = "select ?, 0, " + key + ", 'T', '{}' from ";
    String insert =
        "insert into outboxer_message (outbox, partition_no, group_key, message_type, payload) ";
    if (Sql.database().equals("postgresql")) {
      Sql.update(insert + select + "generate_series(1, " + count + ") g order by g", outbox);
    } else {
      Sql.update(
          "with recursive s(g) as (select 1 union all select g + 1 from s where g < "
              + count
              + ") "
              + insert
              + select
              + "s",
          outbox);
    }
  }
}
