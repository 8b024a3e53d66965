package io.outboxer.internal.rules;

import io.outboxer.internal.store.RowState;
import io.outboxer.spi.Envelope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * One partition's message rows in memory, with what the store's statements do to them: ready rows
 * read by id, the heads of their groups, holds, releases, promotions, completions and repairs. The
 * batch reads run the real {@link BatchSelection} on them; nothing here decides what a read
 * returns. Not thread-safe: callers that share it across threads lock it.
 */
public final class RowTable {

  /** A message row. */
  public static final class Row {
    public final long id;
    public final String group;
    public RowState state = RowState.READY;
    public int attempts;
    public String lastError;

    /** For a {@link RowState#RETRYING} row: true once its retry time has come. */
    public boolean due;

    Row(long id, String group) {
      this.id = id;
      this.group = group;
    }
  }

  /** The outbox every envelope names. */
  public static final String OUTBOX = "orders";

  public final TreeMap<Long, Row> rows = new TreeMap<>();

  /** Every read of ready rows the selections ran, in order. */
  public final List<BatchSelection.Read> reads = new ArrayList<>();

  /** The partition's repair count, which an operator's repair raises. */
  public long repairs;

  /** Adds a ready row. */
  public void add(long id, String group) {
    rows.put(id, new Row(id, group));
  }

  /** Adds ready rows {@code from} to {@code to}, both included. */
  public void add(long from, long to, String group) {
    for (long id = from; id <= to; id++) {
      add(id, group);
    }
  }

  /** The ids of the rows in {@code state}, in order. */
  public List<Long> ids(RowState state) {
    return rows.values().stream().filter(r -> r.state == state).map(r -> r.id).toList();
  }

  /** The ids of {@code group}'s rows, in order. */
  public List<Long> idsOf(String group) {
    return rows.values().stream()
        .filter(r -> group == null ? r.group == null : group.equals(r.group))
        .map(r -> r.id)
        .toList();
  }

  /** The retry time of waiting row {@code id} has come. */
  public void comeDue(long id) {
    rows.get(id).due = true;
  }

  /**
   * A batch read in one transaction, as the store runs it: retrying heads whose retry time has come
   * are ready again, then the selection runs on the rows.
   *
   * @param waitsForWriters true where reads wait for writers: the read may start past rows it knows
   */
  public ReadBatch read(
      Ordering ordering,
      int batchSize,
      boolean waitsForWriters,
      ReadStart start,
      BooleanSupplier woken) {
    boolean promoted = false;
    for (Row r : rows.values()) {
      if (r.state == RowState.RETRYING && r.due) {
        r.state = RowState.READY;
        r.due = false;
        promoted = true;
      }
    }
    return new BatchSelection(
            ordering, batchSize, waitsForWriters, start, waitsForWriters ? repairs : -1, woken)
        .select(
            promoted,
            () -> rows.values().stream().anyMatch(r -> r.state == RowState.RETRYING),
            new Statements(ordering, batchSize));
  }

  /** A batch's completion, as the store writes it. */
  public void complete(Completion completion) {
    completion.release().forEach(this::release);
    for (long id : completion.delete()) {
      if (rows.containsKey(id) && rows.get(id).state == RowState.READY) {
        rows.remove(id);
      }
    }
    for (Completion.Failure f : completion.failures()) {
      Row r = rows.get(f.id());
      if (r == null || r.state != RowState.READY) {
        continue;
      }
      r.attempts++;
      r.lastError = f.reason();
      r.state = f.dead() ? RowState.DEAD : RowState.RETRYING;
      if (f.groupEffect() == Completion.GroupEffect.RELEASE) {
        release(f.groupKey());
      }
    }
  }

  /** An operator's discard of row {@code id} that releases its group: a repair. */
  public void discard(long id) {
    Row r = rows.remove(id);
    release(r.group);
    repairs++;
  }

  private void release(String group) {
    if (group == null) {
      return;
    }
    for (Row r : rows.values()) {
      if (r.state == RowState.HELD && group.equals(r.group)) {
        r.state = RowState.READY;
      }
    }
  }

  private final class Statements implements BatchSelection.Rows {
    private final Ordering ordering;
    private final int batchSize;

    Statements(Ordering ordering, int batchSize) {
      this.ordering = ordering;
      this.batchSize = batchSize;
    }

    @Override
    public List<Envelope> ready(BatchSelection.Read read) {
      reads.add(read);
      List<Envelope> ready = new ArrayList<>();
      for (Row r : rows.tailMap(read.from(), true).values()) {
        if (ready.size() == batchSize) {
          break;
        }
        if (r.state == RowState.READY && (r.group == null || !read.leaveOut().contains(r.group))) {
          ready.add(
              new Envelope(
                  r.id,
                  OUTBOX,
                  0,
                  r.group,
                  "T",
                  "{}",
                  r.attempts + 1,
                  OrderingScope.of(ordering, r.group)));
        }
      }
      return ready;
    }

    @Override
    public Map<String, BlockedGroups.Heads> heads(List<Envelope> batch) {
      Map<String, BlockedGroups.Heads> heads = new HashMap<>();
      for (String group : BlockedGroups.groupsOf(batch)) {
        Long retrying = null;
        Long firstHeld = null;
        Long dueAgain = null;
        for (Row r : rows.values()) {
          if (!group.equals(r.group)) {
            continue;
          }
          if (r.state == RowState.RETRYING && retrying == null) {
            retrying = r.id;
          } else if (r.state == RowState.HELD && firstHeld == null) {
            firstHeld = r.id;
          } else if (r.state == RowState.READY && r.attempts > 0 && dueAgain == null) {
            dueAgain = r.id;
          }
        }
        if (retrying != null || firstHeld != null) {
          heads.put(group, new BlockedGroups.Heads(retrying, firstHeld, dueAgain));
        }
      }
      return heads;
    }

    @Override
    public void release(List<String> groups) {
      groups.forEach(RowTable.this::release);
    }

    @Override
    public void hold(List<Long> ids) {
      for (long id : ids) {
        Row r = rows.get(id);
        if (r != null && r.state == RowState.READY) {
          r.state = RowState.HELD;
        }
      }
    }
  }
}
