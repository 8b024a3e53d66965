package io.outboxer.demo;

import io.outboxer.OutboxMessage;

/** Published when an order is paid. Its events stay in order per order: the group is the order. */
public record OrderPaid(String orderId, String paidAt) implements OutboxMessage {

  @Override
  public String groupKey() {
    return "order:" + orderId;
  }
}
