package io.outboxer.internal.telemetry;

import java.time.Duration;

/** What a partition worker reports of its work, for the metrics of its outbox. */
public interface DeliveryEvents {

  /** Reports nothing. */
  DeliveryEvents NONE =
      new DeliveryEvents() {
        @Override
        public void relayCalled(Duration took) {}

        @Override
        public void completed(int delivered, int failed, int dead) {}

        @Override
        public void lease(LeaseChange change) {}
      };

  /** How a partition's lease changed hands on this node. */
  enum LeaseChange {
    /** This node took the lease (free, expired, or handed back by another node). */
    TAKEN,
    /** This node handed it back: it held more than its fair share, or it stopped. */
    HANDED_BACK,
    /** This node lost it: it expired before renewal, or another node took it over. */
    LOST
  }

  /** One call of the relay returned or threw after {@code took}. */
  void relayCalled(Duration took);

  /**
   * A batch's outcome was recorded: {@code delivered} messages confirmed and deleted, {@code
   * failed} attempts charged, {@code dead} of them the last one allowed.
   */
  void completed(int delivered, int failed, int dead);

  /** The partition's lease changed on this node. */
  void lease(LeaseChange change);
}
