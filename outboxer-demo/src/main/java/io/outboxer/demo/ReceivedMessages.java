package io.outboxer.demo;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** What the demo queue's listener consumed, in arrival order (kept in memory). */
@ApplicationScoped
public class ReceivedMessages {

  private final List<JsonObject> received = new ArrayList<>();

  public synchronized void add(JsonObject message) {
    received.add(message);
  }

  public synchronized JsonArray all() {
    JsonArrayBuilder array = Json.createArrayBuilder();
    received.forEach(array::add);
    return array.build();
  }
}
