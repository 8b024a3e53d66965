package io.outboxer.internal.rules;

import io.outboxer.spi.DeliveryReport;
import io.outboxer.spi.Envelope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the engine does with a delivered batch, decided from the relay's report with the relay
 * contract enforced: per ordering scope, only the messages before the scope's first failure (or
 * first unreported message) count as confirmed; everything after it stays pending and untouched,
 * whatever the relay claimed.
 *
 * @param confirmed messages to delete
 * @param failed messages whose failure is recorded (attempts + 1, retry time or dead)
 * @param untouched messages left exactly as they were
 */
public record BatchOutcome(
    List<Envelope> confirmed, List<Failure> failed, List<Envelope> untouched) {

  /** A failed message and the relay's reason. */
  public record Failure(Envelope envelope, String reason) {}

  /** Applies {@code report} to {@code batch}, which is in id order. */
  public static BatchOutcome decide(List<Envelope> batch, DeliveryReport report) {
    List<Envelope> confirmed = new ArrayList<>();
    List<Failure> failed = new ArrayList<>();
    List<Envelope> untouched = new ArrayList<>();
    Set<String> stoppedScopes = new HashSet<>();
    for (Envelope e : batch) {
      String scope = e.orderingScope();
      if (scope != null && stoppedScopes.contains(scope)) {
        untouched.add(e);
      } else if (report.isConfirmed(e.id())) {
        confirmed.add(e);
      } else {
        String reason = report.failed().get(e.id());
        if (reason != null) {
          failed.add(new Failure(e, reason));
        } else {
          untouched.add(e);
        }
        if (scope != null) {
          stoppedScopes.add(scope);
        }
      }
    }
    return new BatchOutcome(List.copyOf(confirmed), List.copyOf(failed), List.copyOf(untouched));
  }
}
