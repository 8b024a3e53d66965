package io.outboxer.internal.relay.kafka;

import io.outboxer.internal.relay.support.Settlement;
import io.outboxer.internal.rules.Deadline;
import io.outboxer.spi.Envelope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Delivers a batch in Kafka transactions so that a message is charged only for its own refusal.
 *
 * <p>A record that Kafka refuses puts the whole transaction into an error state: the other records
 * of the transaction fail too, with the refusal's exception or with the error state's. So each
 * round sends what is left in one transaction; when it fails, the records refused for their own
 * content are reported failed, they and the rest of their scopes are left out, and the rest goes
 * again. When a round fails without saying which record caused it, the rounds halve what is left
 * and send its first half first: a prefix of the batch is a prefix of every scope, so the order
 * holds, the healthy halves are committed, and the refusal is pinned to its record within a few
 * rounds. A round that fails without any record-level refusal means the destination is unavailable:
 * the call ends with what was settled so far, or throws when nothing was.
 */
final class TransactionRounds {

  /** Why one record of a failed transaction failed. */
  enum Cause {
    /** Refused for its own content: charged to the message. */
    OWN,
    /** A record-level refusal that other records of the transaction share: whose is unknown. */
    SHARED,
    /** The transaction's or the destination's failure, not the record's: never charged. */
    COLLATERAL
  }

  /** One record's failure in a transaction. */
  record Failure(String reason, Cause cause) {}

  /**
   * The outcome of sending records in one transaction: committed when every record was
   * acknowledged, otherwise aborted with the failed records (the others may have failed unseen).
   */
  record Round(boolean committed, Map<Long, Failure> failures) {

    /** A transaction that failed as a whole, for {@code reason}: no record is to blame. */
    static Round unavailable(List<Envelope> records, String reason) {
      Map<Long, Failure> failures = new HashMap<>();
      records.forEach(e -> failures.put(e.id(), new Failure(reason, Cause.COLLATERAL)));
      return new Round(false, failures);
    }
  }

  /** Sends records in one Kafka transaction and commits it only when all were acknowledged. */
  @FunctionalInterface
  interface Transaction {
    Round send(List<Envelope> records);
  }

  private final Transaction transaction;
  private final Deadline deadline;
  private final Settlement report;
  private final Set<Long> refusedIds = new HashSet<>();
  private final Map<String, Long> scopesStoppedAt = new HashMap<>();
  private int settled;
  private RuntimeException unavailable;

  private TransactionRounds(Transaction transaction, Deadline deadline, Settlement report) {
    this.transaction = transaction;
    this.deadline = deadline;
    this.report = report;
  }

  /**
   * Delivers {@code batch} in rounds until every message is confirmed or refused, the deadline
   * passes (the rest stays unreported), or the destination proves unavailable; each round's outcome
   * goes to {@code report} as it is known.
   *
   * @throws KafkaUnavailableException when the destination failed before anything was settled
   */
  static void deliver(
      List<Envelope> batch, Transaction transaction, Deadline deadline, Settlement report) {
    TransactionRounds rounds = new TransactionRounds(transaction, deadline, report);
    rounds.settle(batch);
    if (rounds.unavailable != null && rounds.settled == 0) {
      throw rounds.unavailable;
    }
  }

  /** Settles {@code part}, a prefix of what is left; false when it could not be finished. */
  private boolean settle(List<Envelope> part) {
    List<Envelope> left = open(part);
    while (!left.isEmpty()) {
      if (deadline.passed() || report.ended()) {
        return false;
      }
      Round round = transaction.send(left);
      if (round.committed()) {
        report.confirmed(left.stream().map(Envelope::id).toList());
        settled += left.size();
        return true;
      }
      List<Envelope> refused = new ArrayList<>();
      boolean shared = false;
      for (Envelope e : left) {
        Failure f = round.failures().get(e.id());
        if (f != null
            && (f.cause() == Cause.OWN || f.cause() == Cause.SHARED && left.size() == 1)) {
          refused.add(e);
          refusedIds.add(e.id());
          report.failed(e.id(), f.reason());
        }
        shared |= f != null && f.cause() == Cause.SHARED;
      }
      if (!refused.isEmpty()) {
        settled += refused.size();
        refused.forEach(this::stop);
        left = open(left);
      } else if (shared) {
        int half = left.size() / 2;
        if (!settle(left.subList(0, half))) {
          return false;
        }
        left = open(left.subList(half, left.size()));
      } else {
        unavailable = new KafkaUnavailableException(reasons(round));
        return false;
      }
    }
    return true;
  }

  /** The records of {@code part} that are neither refused nor behind a refusal of their scope. */
  private List<Envelope> open(List<Envelope> part) {
    List<Envelope> open = new ArrayList<>(part.size());
    for (Envelope e : part) {
      Long stoppedAt = e.orderingScope() == null ? null : scopesStoppedAt.get(e.orderingScope());
      if (!refusedIds.contains(e.id()) && (stoppedAt == null || e.id() < stoppedAt)) {
        open.add(e);
      }
    }
    return open;
  }

  private void stop(Envelope e) {
    if (e.orderingScope() != null) {
      scopesStoppedAt.merge(e.orderingScope(), e.id(), Math::min);
    }
  }

  private static String reasons(Round round) {
    return round.failures().values().stream()
        .map(Failure::reason)
        .distinct()
        .limit(3)
        .toList()
        .toString();
  }
}
