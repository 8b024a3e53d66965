package io.outboxer.demo;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.jms.TextMessage;
import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import java.io.StringReader;

/**
 * Consumes the demo queue that the default outbox's JMS relay sends to. The activation spec in
 * server.xml runs one instance at a time, so messages are consumed in the order they were sent. The
 * trace context the message was published in, if any, is recorded beside it.
 */
@MessageDriven(
    activationConfig = {
      @ActivationConfigProperty(
          propertyName = "destinationType",
          propertyValue = "jakarta.jms.Queue")
    })
public class DemoQueueListener implements MessageListener {

  @Inject private ReceivedMessages received;

  @Override
  public void onMessage(Message message) {
    try {
      long id = message.getLongProperty("OutboxerId");
      String group = message.getStringProperty("OutboxerGroup");
      JsonObjectBuilder entry =
          Json.createObjectBuilder()
              .add("id", id)
              .add("type", message.getStringProperty("OutboxerType"));
      if (group == null) {
        entry.addNull("group");
      } else {
        entry.add("group", group);
      }
      String traceParent = message.getStringProperty("traceparent");
      if (traceParent != null) {
        entry.add("traceparent", traceParent);
      }
      String body = ((TextMessage) message).getText();
      entry.add("payload", Json.createReader(new StringReader(body)).readObject());
      received.add(entry.build());
    } catch (JMSException e) {
      throw new IllegalStateException("cannot read a demo queue message", e);
    }
  }
}
