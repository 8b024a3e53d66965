package io.outboxer.internal.entity;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * One published message, pending delivery. The row is inserted in the publisher's transaction and
 * deleted once the relay confirmed it; dead rows stay until an operator revives or discards them.
 *
 * <p>The id comes from the database at insert (identity), so that id order is the same on every
 * server sharing the database. Times and the delivery state are written by the database defaults
 * and by the engine's own statements, never through this entity.
 */
@Entity
@Table(name = "outboxer_message")
public class OutboxRecord {

  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;

  @Column(name = "outbox", nullable = false, updatable = false)
  private String outbox;

  @Column(name = "partition_no", nullable = false, updatable = false)
  private int partition;

  @Column(name = "group_key", updatable = false)
  private String groupKey;

  @Column(name = "message_type", nullable = false, updatable = false)
  private String type;

  @Column(name = "payload", nullable = false, updatable = false)
  private String payload;

  /** The W3C traceparent of the span the message was published in, or null. */
  @Column(name = "trace_parent", updatable = false)
  private String traceParent;

  protected OutboxRecord() {}

  public OutboxRecord(
      String outbox,
      int partition,
      String groupKey,
      String type,
      String payload,
      String traceParent) {
    this.outbox = outbox;
    this.partition = partition;
    this.groupKey = groupKey;
    this.type = type;
    this.payload = payload;
    this.traceParent = traceParent;
  }

  public Long getId() {
    return id;
  }

  public String getOutbox() {
    return outbox;
  }

  public int getPartition() {
    return partition;
  }

  public String getGroupKey() {
    return groupKey;
  }

  public String getType() {
    return type;
  }

  public String getPayload() {
    return payload;
  }

  public String getTraceParent() {
    return traceParent;
  }
}
