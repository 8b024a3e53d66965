package io.outboxer.demo;

import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** {@code POST /demo/orders/{id}/paid}: pays an order; answers 201 with the message id. */
@Path("orders")
public class OrdersResource {

  @Inject private Payments payments;

  @POST
  @Path("{id}/paid")
  @Produces(MediaType.APPLICATION_JSON)
  public Response paid(@PathParam("id") String orderId) {
    long messageId = payments.markPaid(orderId);
    return Response.status(Response.Status.CREATED)
        .entity(Json.createObjectBuilder().add("messageId", messageId).build())
        .build();
  }
}
