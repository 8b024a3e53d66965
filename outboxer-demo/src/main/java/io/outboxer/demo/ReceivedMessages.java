package io.outboxer.demo;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** What the demo queue's listener consumed, in arrival order (kept in memory). */
@ApplicationScoped
public class ReceivedMessages {

  private final List<JsonObject> received = new ArrayList<>();

  public synchronized void add(JsonObject message) {
    received.add(message);
  }

  /** How many messages arrived, and how many distinct message ids among them. */
  public synchronized JsonObject count() {
    Set<Long> ids = new HashSet<>();
    received.forEach(m -> ids.add(m.getJsonNumber("id").longValue()));
    return Json.createObjectBuilder()
        .add("messages", received.size())
        .add("distinct", ids.size())
        .build();
  }

  public synchronized JsonArray all() {
    JsonArrayBuilder array = Json.createArrayBuilder();
    received.forEach(array::add);
    return array.build();
  }
}
