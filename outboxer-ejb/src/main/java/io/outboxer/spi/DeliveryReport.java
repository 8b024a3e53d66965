package io.outboxer.spi;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What a {@link Relay} reports for one batch: which messages the destination confirmed, and which
 * failed with what reason. A message in neither set was not attempted (it stays pending and its
 * attempt counter is not increased).
 */
public final class DeliveryReport {

  private final Set<Long> confirmed;
  private final Map<Long, String> failed;

  private DeliveryReport(Set<Long> confirmed, Map<Long, String> failed) {
    this.confirmed = Collections.unmodifiableSet(confirmed);
    this.failed = Collections.unmodifiableMap(failed);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Ids the destination durably accepted. */
  public Set<Long> confirmed() {
    return confirmed;
  }

  /** Ids that failed, with the reason kept as the message's last error. */
  public Map<Long, String> failed() {
    return failed;
  }

  public boolean isConfirmed(long id) {
    return confirmed.contains(id);
  }

  /** Collects a batch's outcomes. */
  public static final class Builder {
    private final Set<Long> confirmed = new HashSet<>();
    private final Map<Long, String> failed = new HashMap<>();

    public Builder confirmed(long id) {
      confirmed.add(id);
      return this;
    }

    public Builder failed(long id, String reason) {
      failed.put(id, reason == null ? "no reason given" : reason);
      return this;
    }

    public DeliveryReport build() {
      return new DeliveryReport(new HashSet<>(confirmed), new HashMap<>(failed));
    }
  }
}
