package io.outboxer.it.support;

import io.outboxer.OutboxMessage;

/** The integration tests' message: a group (or none) and a sequence number within the test. */
public class ItEvent implements OutboxMessage {

  private String group;
  private int seq;

  public ItEvent() {}

  public ItEvent(String group, int seq) {
    this.group = group;
    this.seq = seq;
  }

  @Override
  public String groupKey() {
    return group;
  }

  public String getGroup() {
    return group;
  }

  public void setGroup(String group) {
    this.group = group;
  }

  public int getSeq() {
    return seq;
  }

  public void setSeq(int seq) {
    this.seq = seq;
  }
}
