package io.outboxer.demo;

import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /demo/received}: what the demo queue delivered, in arrival order. */
@Path("received")
public class ReceivedResource {

  @Inject private ReceivedMessages received;

  @GET
  @Produces(MediaType.APPLICATION_JSON)
  public JsonArray received() {
    return received.all();
  }
}
