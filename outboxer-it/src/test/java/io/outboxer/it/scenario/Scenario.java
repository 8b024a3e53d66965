package io.outboxer.it.scenario;

import java.util.List;

/**
 * One generated scenario: messages in publication order, each with its group (null: ungrouped) and
 * how many of its first attempts the relay fails; published in transactions of {@code
 * perTransaction} messages.
 */
public class Scenario {

  public static class Message {
    public String group;
    public int failures;
  }

  public List<Message> messages;
  public int perTransaction;
}
