package io.outboxer.it.setup;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Drives the demo application of a real server over HTTP, as the tour in the README does. */
public final class DemoClient {

  private final LibertyServer server;

  public DemoClient(LibertyServer server) {
    this.server = server;
  }

  /** Pays {@code order}: one {@code OrderPaid} published in group {@code order:<order>}. */
  public long pay(String order) throws Exception {
    HttpResponse<String> response = server.post("/demo/orders/" + order + "/paid", null);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    return json(response.body()).getJsonNumber("messageId").longValue();
  }

  /** What the demo's message-driven bean received, in arrival order. */
  public JsonArray received() throws Exception {
    HttpResponse<String> response = server.get("/demo/received");
    assertThat(response.statusCode()).isEqualTo(200);
    return Json.createReader(new StringReader(response.body())).readArray();
  }

  /** The message ids of {@code received} by group, each in arrival order. */
  public static Map<String, List<Long>> byGroup(JsonArray received) {
    Map<String, List<Long>> byGroup = new LinkedHashMap<>();
    for (JsonObject r : received.getValuesAs(JsonObject.class)) {
      byGroup
          .computeIfAbsent(r.getString("group"), g -> new ArrayList<>())
          .add(r.getJsonNumber("id").longValue());
    }
    return byGroup;
  }

  public static JsonObject json(String body) {
    return Json.createReader(new StringReader(body)).readObject();
  }
}
