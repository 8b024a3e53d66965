package io.outboxer.demo;

import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code GET /demo/received}: what the demo queue delivered, in arrival order; {@code GET
 * /demo/received/count}: how many messages, and how many distinct ids.
 */
@Path("received")
public class ReceivedResource {

  @Inject private ReceivedMessages received;

  @GET
  @Produces(MediaType.APPLICATION_JSON)
  public JsonArray received() {
    return received.all();
  }

  @GET
  @Path("count")
  @Produces(MediaType.APPLICATION_JSON)
  public JsonObject count() {
    return received.count();
  }
}
