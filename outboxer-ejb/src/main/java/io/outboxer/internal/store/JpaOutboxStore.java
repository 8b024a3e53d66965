package io.outboxer.internal.store;

import io.outboxer.internal.config.Ordering;
import io.outboxer.internal.config.OutboxSettings;
import io.outboxer.internal.entity.OutboxRecord;
import io.outboxer.internal.worker.Backoff;
import io.outboxer.internal.worker.BatchOutcome;
import io.outboxer.spi.Envelope;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The outbox tables through Hibernate: the publisher's insert, the worker's batch reads and
 * completions, leases and the partition record. Every worker method is one transaction; none nests
 * another (SQLite's pool holds one connection).
 *
 * <p>Row states: {@value #READY} ready, {@value #HELD} held behind a failing head of its group,
 * {@value #DEAD} dead, {@value #WAITING} a failed head waiting for its retry time. The worker's
 * scan reads only the ready range of its index, so neither a blocked group's backlog nor the number
 * of blocked groups adds to the cost of a batch (ADR 0002).
 */
@ApplicationScoped
public class JpaOutboxStore {

  public static final int READY = 0;
  public static final int HELD = 1;
  public static final int DEAD = 2;
  public static final int WAITING = 3;

  /** The ordering scope of every message of a total-ordering outbox. */
  private static final String TOTAL_SCOPE = "";

  @PersistenceContext(unitName = "outboxer")
  private EntityManager em;

  @Inject private Database database;

  private String now() {
    return database.dialect().nowMillis();
  }

  /**
   * Inserts {@code record} in the caller's transaction, first taking the lock on {@code lockKey}
   * where the database needs one.
   */
  public long insert(OutboxRecord record, Long lockKey) {
    String lock = database.dialect().groupLock();
    if (lockKey != null && lock != null) {
      em.createNativeQuery(lock).setParameter(1, lockKey).getResultList();
    }
    em.persist(record);
    return record.getId();
  }

  /**
   * Records {@code partitions} for {@code outbox}, or refuses a changed count while the outbox
   * still holds rows.
   *
   * @return empty when the count is in force, otherwise why it was refused
   */
  @Transactional
  public Optional<String> recordPartitions(String outbox, int partitions) {
    em.createNativeQuery(
            "insert into outboxer_outbox (name, partitions) values (:name, :partitions)"
                + " on conflict do nothing")
        .setParameter("name", outbox)
        .setParameter("partitions", partitions)
        .executeUpdate();
    int recorded =
        number(
                em.createNativeQuery("select partitions from outboxer_outbox where name = :name")
                    .setParameter("name", outbox)
                    .getSingleResult())
            .intValue();
    if (recorded == partitions) {
      return Optional.empty();
    }
    long rows =
        number(
                em.createNativeQuery("select count(*) from outboxer_message where outbox = :name")
                    .setParameter("name", outbox)
                    .getSingleResult())
            .longValue();
    if (rows > 0) {
      return Optional.of(
          "OUTBOXER-1101 outbox '"
              + outbox
              + "' holds "
              + rows
              + " messages hashed over "
              + recorded
              + " partitions, but outboxer.outbox."
              + outbox
              + ".partitions is now "
              + partitions
              + ": its workers do not start until the change is undone or the outbox is drained"
              + " (pending and dead messages delivered or discarded)");
    }
    em.createNativeQuery("update outboxer_outbox set partitions = :partitions where name = :name")
        .setParameter("name", outbox)
        .setParameter("partitions", partitions)
        .executeUpdate();
    return Optional.empty();
  }

  /** Creates the lease rows of {@code outbox}'s partitions that do not exist yet. */
  @Transactional
  public void createLeases(String outbox, int partitions) {
    for (int p = 0; p < partitions; p++) {
      em.createNativeQuery(
              "insert into outboxer_lease (outbox, partition_no) values (:outbox, :partition)"
                  + " on conflict do nothing")
          .setParameter("outbox", outbox)
          .setParameter("partition", p)
          .executeUpdate();
    }
  }

  /** Takes the lease of a partition if it is free or expired, with a new epoch. */
  @Transactional
  public Optional<Lease> acquire(String outbox, int partition, String owner, Duration ttl) {
    int taken =
        em.createNativeQuery(
                "update outboxer_lease set owner = :owner, epoch = epoch + 1, expires_at = "
                    + now()
                    + " + :ttl where outbox = :outbox and partition_no = :partition"
                    + " and (owner is null or expires_at <= "
                    + now()
                    + ")")
            .setParameter("owner", owner)
            .setParameter("ttl", ttl.toMillis())
            .setParameter("outbox", outbox)
            .setParameter("partition", partition)
            .executeUpdate();
    if (taken == 0) {
      return Optional.empty();
    }
    long epoch =
        number(
                em.createNativeQuery(
                        "select epoch from outboxer_lease where outbox = :outbox"
                            + " and partition_no = :partition")
                    .setParameter("outbox", outbox)
                    .setParameter("partition", partition)
                    .getSingleResult())
            .longValue();
    return Optional.of(new Lease(outbox, partition, owner, epoch));
  }

  /** Extends a lease that is still valid; false when it was lost. */
  @Transactional
  public boolean renew(Lease lease, Duration ttl) {
    return leaseUpdate("expires_at = " + now() + " + :ttl", lease, ttl) == 1;
  }

  /** Gives a lease back so that another server can take the partition at once. */
  @Transactional
  public void release(Lease lease) {
    leaseUpdate("owner = null, expires_at = 0", lease, null);
  }

  private int leaseUpdate(String set, Lease lease, Duration ttl) {
    var query =
        em.createNativeQuery(
                "update outboxer_lease set "
                    + set
                    + " where outbox = :outbox and partition_no = :partition and owner = :owner"
                    + " and epoch = :epoch and expires_at > "
                    + now())
            .setParameter("outbox", lease.outbox())
            .setParameter("partition", lease.partition())
            .setParameter("owner", lease.owner())
            .setParameter("epoch", lease.epoch());
    if (ttl != null) {
      query.setParameter("ttl", ttl.toMillis());
    }
    return query.executeUpdate();
  }

  /**
   * Records that {@code node} delivers {@code outbox} now, and forgets nodes silent for ten ttls.
   *
   * @return how many nodes delivered the outbox within {@code ttl}, this one included
   */
  @Transactional
  public int heartbeat(String outbox, String node, Duration ttl) {
    em.createNativeQuery(
            "insert into outboxer_node (outbox, node_id, heartbeat_at) values (:outbox, :node, "
                + now()
                + ") on conflict (outbox, node_id) do update set heartbeat_at ="
                + " excluded.heartbeat_at")
        .setParameter("outbox", outbox)
        .setParameter("node", node)
        .executeUpdate();
    em.createNativeQuery(
            "delete from outboxer_node where outbox = :outbox and heartbeat_at < "
                + now()
                + " - :forget")
        .setParameter("outbox", outbox)
        .setParameter("forget", ttl.toMillis() * 10)
        .executeUpdate();
    return number(
            em.createNativeQuery(
                    "select count(*) from outboxer_node where outbox = :outbox and heartbeat_at > "
                        + now()
                        + " - :ttl")
                .setParameter("outbox", outbox)
                .setParameter("ttl", ttl.toMillis())
                .getSingleResult())
        .intValue();
  }

  /** Forgets {@code node}'s heartbeat for {@code outbox}: it no longer delivers it. */
  @Transactional
  public void leave(String outbox, String node) {
    em.createNativeQuery("delete from outboxer_node where outbox = :outbox and node_id = :node")
        .setParameter("outbox", outbox)
        .setParameter("node", node)
        .executeUpdate();
  }

  /**
   * Reads the next batch of a partition in id order: heads whose retry time has come are ready
   * again; with group ordering, rows met behind a blocked head of their group are held (once each)
   * and left out; with total ordering, nothing is read while a head waits.
   */
  @Transactional
  public List<Envelope> nextBatch(OutboxSettings outbox, int partition) {
    em.createNativeQuery(
            "update outboxer_message set state = "
                + READY
                + " where outbox = :outbox and partition_no = :partition and state = "
                + WAITING
                + " and next_attempt_at <= "
                + now())
        .setParameter("outbox", outbox.name())
        .setParameter("partition", partition)
        .executeUpdate();
    if (outbox.ordering() == Ordering.TOTAL && headWaits(outbox.name(), partition)) {
      return List.of();
    }
    while (true) {
      List<Envelope> read = readReady(outbox, partition);
      if (outbox.ordering() != Ordering.GROUP) {
        return read;
      }
      List<Envelope> free = withoutBlocked(outbox, partition, read);
      // A batch made only of rows behind blocked heads is held and read past at once, rather than
      // ending the worker's run with ready rows still behind them.
      if (!free.isEmpty() || free.size() == read.size()) {
        return free;
      }
    }
  }

  private List<Envelope> readReady(OutboxSettings outbox, int partition) {
    @SuppressWarnings("unchecked")
    List<Object[]> rows =
        em.createNativeQuery(
                "select id, group_key, message_type, payload, attempts from outboxer_message"
                    + " where outbox = :outbox and partition_no = :partition and state < "
                    + (READY + 1)
                    + " order by state, id limit :limit")
            .setParameter("outbox", outbox.name())
            .setParameter("partition", partition)
            .setParameter("limit", outbox.batchSize())
            .getResultList();
    List<Envelope> batch = new ArrayList<>(rows.size());
    for (Object[] row : rows) {
      String group = (String) row[1];
      batch.add(
          new Envelope(
              number(row[0]).longValue(),
              outbox.name(),
              partition,
              group,
              (String) row[2],
              (String) row[3],
              number(row[4]).intValue() + 1,
              scope(outbox.ordering(), group)));
    }
    return batch;
  }

  private boolean headWaits(String outbox, int partition) {
    return !em.createNativeQuery(
            "select id from outboxer_message where outbox = :outbox and partition_no = :partition"
                + " and state = "
                + WAITING
                + " limit 1")
        .setParameter("outbox", outbox)
        .setParameter("partition", partition)
        .getResultList()
        .isEmpty();
  }

  private List<Envelope> withoutBlocked(
      OutboxSettings outbox, int partition, List<Envelope> batch) {
    Set<String> groups = new LinkedHashSet<>();
    for (Envelope e : batch) {
      if (e.groupKey() != null) {
        groups.add(e.groupKey());
      }
    }
    if (groups.isEmpty()) {
      return batch;
    }
    // Two index probes per group (its waiting head; its first held row), each one entry deep:
    // the cost depends on the batch, never on how many rows a blocked group holds.
    StringBuilder values = new StringBuilder();
    List<String> keys = new ArrayList<>(groups);
    for (int i = 0; i < keys.size(); i++) {
      values.append(i == 0 ? "(:g" : ", (:g").append(i).append(')');
    }
    var query =
        em.createNativeQuery(
                "with k(g) as (values "
                    + values
                    + ") select k.g, (select m.id from outboxer_message m"
                    + " where m.outbox = :outbox and m.partition_no = :partition and m.state = "
                    + WAITING
                    + " and m.group_key = k.g limit 1), (select m.id from outboxer_message m"
                    + " where m.outbox = :outbox and m.partition_no = :partition and m.state = "
                    + HELD
                    + " and m.group_key = k.g order by m.id limit 1) from k")
            .setParameter("outbox", outbox.name())
            .setParameter("partition", partition);
    for (int i = 0; i < keys.size(); i++) {
      query.setParameter("g" + i, keys.get(i));
    }
    // A group is blocked from its waiting head, or else from its first held row.
    Map<String, Long> blockedFrom = new HashMap<>();
    @SuppressWarnings("unchecked")
    List<Object[]> rows = query.getResultList();
    for (Object[] row : rows) {
      Object from = row[1] != null ? row[1] : row[2];
      if (from != null) {
        blockedFrom.put((String) row[0], number(from).longValue());
      }
    }
    if (blockedFrom.isEmpty()) {
      return batch;
    }
    List<Envelope> free = new ArrayList<>(batch.size());
    List<Long> hold = new ArrayList<>();
    for (Envelope e : batch) {
      Long from = e.groupKey() == null ? null : blockedFrom.get(e.groupKey());
      if (from != null && e.id() > from) {
        hold.add(e.id());
      } else {
        free.add(e);
      }
    }
    if (!hold.isEmpty()) {
      em.createNativeQuery("update outboxer_message set state = " + HELD + " where id in (:ids)")
          .setParameter("ids", hold)
          .executeUpdate();
    }
    return free;
  }

  /**
   * Applies a delivered batch's outcome in one transaction, fenced by the lease: deletes the
   * confirmed messages, records the failures, and holds or releases their groups.
   *
   * @return false, having changed nothing, when the lease was lost
   */
  @Transactional
  public boolean complete(OutboxSettings outbox, Lease lease, BatchOutcome outcome) {
    int fenced =
        em.createNativeQuery(
                "update outboxer_lease set epoch = epoch where outbox = :outbox"
                    + " and partition_no = :partition and owner = :owner and epoch = :epoch"
                    + " and expires_at > "
                    + now())
            .setParameter("outbox", lease.outbox())
            .setParameter("partition", lease.partition())
            .setParameter("owner", lease.owner())
            .setParameter("epoch", lease.epoch())
            .executeUpdate();
    if (fenced != 1) {
      return false;
    }
    boolean grouped = outbox.ordering() == Ordering.GROUP;
    if (!outcome.confirmed().isEmpty()) {
      List<Long> ids = new ArrayList<>(outcome.confirmed().size());
      for (Envelope e : outcome.confirmed()) {
        ids.add(e.id());
        if (grouped && e.groupKey() != null && e.attempt() > 1) {
          releaseGroup(outbox.name(), lease.partition(), e.groupKey());
        }
      }
      em.createNativeQuery("delete from outboxer_message where id in (:ids)")
          .setParameter("ids", ids)
          .executeUpdate();
    }
    for (BatchOutcome.Failure f : outcome.failed()) {
      Envelope e = f.envelope();
      boolean dead = !outbox.retriesForever() && e.attempt() >= outbox.maxAttempts();
      int updated;
      if (dead) {
        updated =
            em.createNativeQuery(
                    "update outboxer_message set attempts = attempts + 1, last_error = :error,"
                        + " last_attempt_at = "
                        + now()
                        + ", state = "
                        + DEAD
                        + " where id = :id")
                .setParameter("error", truncate(f.reason()))
                .setParameter("id", e.id())
                .executeUpdate();
      } else {
        Duration delay = Backoff.after(e.attempt(), outbox.backoffMin(), outbox.backoffMax());
        updated =
            em.createNativeQuery(
                    "update outboxer_message set attempts = attempts + 1, last_error = :error,"
                        + " last_attempt_at = "
                        + now()
                        + ", state = "
                        + WAITING
                        + ", next_attempt_at = "
                        + now()
                        + " + :delay where id = :id")
                .setParameter("error", truncate(f.reason()))
                .setParameter("delay", delay.toMillis())
                .setParameter("id", e.id())
                .executeUpdate();
      }
      if (updated == 1 && grouped && e.groupKey() != null) {
        if (dead) {
          releaseGroup(outbox.name(), lease.partition(), e.groupKey());
        } else if (e.attempt() == 1) {
          // The group becomes blocked: hold its ready rows now, once. Rows that arrive later (or a
          // head that fails again) are held by the batch read as it meets them.
          holdGroup(outbox.name(), lease.partition(), e.groupKey(), e.id());
        }
      }
    }
    return true;
  }

  private void holdGroup(String outbox, int partition, String group, long headId) {
    em.createNativeQuery(
            "update outboxer_message set state = "
                + HELD
                + " where outbox = :outbox and partition_no = :partition and group_key = :group"
                + " and state = "
                + READY
                + " and id > :head")
        .setParameter("outbox", outbox)
        .setParameter("partition", partition)
        .setParameter("group", group)
        .setParameter("head", headId)
        .executeUpdate();
  }

  /** Makes a group's held rows ready again: its head was confirmed, died or was discarded. */
  void releaseGroup(String outbox, int partition, String group) {
    em.createNativeQuery(
            "update outboxer_message set state = "
                + READY
                + " where outbox = :outbox and partition_no = :partition and group_key = :group"
                + " and state = "
                + HELD)
        .setParameter("outbox", outbox)
        .setParameter("partition", partition)
        .setParameter("group", group)
        .executeUpdate();
  }

  /**
   * Per partition: pending (ready, held or waiting), retrying (waiting) and dead messages, as
   * {@code long[3]}.
   */
  public Map<Integer, long[]> countByPartition(String outbox) {
    @SuppressWarnings("unchecked")
    List<Object[]> rows =
        em.createNativeQuery(
                "select partition_no, state, count(*) from outboxer_message where outbox = :outbox"
                    + " group by partition_no, state")
            .setParameter("outbox", outbox)
            .getResultList();
    Map<Integer, long[]> counts = new HashMap<>();
    for (Object[] row : rows) {
      long[] c = counts.computeIfAbsent(number(row[0]).intValue(), p -> new long[3]);
      int state = number(row[1]).intValue();
      long n = number(row[2]).longValue();
      if (state == DEAD) {
        c[2] += n;
      } else {
        c[0] += n;
        if (state == WAITING) {
          c[1] += n;
        }
      }
    }
    return counts;
  }

  /** One message of an outbox, whatever its state. */
  public Optional<StoredMessage> find(String outbox, long id) {
    @SuppressWarnings("unchecked")
    List<Object[]> rows =
        em.createNativeQuery(
                "select partition_no, group_key, state, attempts from outboxer_message"
                    + " where outbox = :outbox and id = :id")
            .setParameter("outbox", outbox)
            .setParameter("id", id)
            .getResultList();
    return rows.stream()
        .findFirst()
        .map(
            r ->
                new StoredMessage(
                    id,
                    outbox,
                    number(r[0]).intValue(),
                    (String) r[1],
                    number(r[2]).intValue(),
                    number(r[3]).intValue()));
  }

  /**
   * Makes dead messages ready again with their attempts reset: all of the outbox's, or the one with
   * {@code id}.
   *
   * @return how many were revived
   */
  public int reviveDead(String outbox, Long id) {
    var query =
        em.createNativeQuery(
                "update outboxer_message set state = "
                    + READY
                    + ", attempts = 0, next_attempt_at = "
                    + now()
                    + " where outbox = :outbox and state = "
                    + DEAD
                    + (id == null ? "" : " and id = :id"))
            .setParameter("outbox", outbox);
    if (id != null) {
      query.setParameter("id", id);
    }
    return query.executeUpdate();
  }

  /** Deletes a message; when it was the failing head of its group, the group moves on. */
  public void discard(OutboxSettings outbox, StoredMessage message) {
    em.createNativeQuery("delete from outboxer_message where id = :id")
        .setParameter("id", message.id())
        .executeUpdate();
    boolean wasHead =
        message.state() == WAITING || (message.state() == READY && message.attempts() > 0);
    if (outbox.ordering() == Ordering.GROUP && message.groupKey() != null && wasHead) {
      releaseGroup(outbox.name(), message.partition(), message.groupKey());
    }
  }

  static String scope(Ordering ordering, String group) {
    return switch (ordering) {
      case GROUP -> group;
      case TOTAL -> TOTAL_SCOPE;
      case NONE -> null;
    };
  }

  private static String truncate(String reason) {
    return reason.length() <= 4000 ? reason : reason.substring(0, 4000);
  }

  static Number number(Object value) {
    return (Number) value;
  }
}
