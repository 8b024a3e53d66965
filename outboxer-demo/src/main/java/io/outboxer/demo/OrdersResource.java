package io.outboxer.demo;

import io.outboxer.OutboxException;
import jakarta.ejb.EJBException;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /demo/orders/{id}/paid}: pays an order; answers 201 with the message id, or 400 with
 * a JSON error when Outboxer refuses the message (an order id too long for a group key, say), in
 * which case nothing was written. With {@code ?publish=false} it records the payment and publishes
 * nothing (answering 204): the benchmark's baseline for the cost of one {@code publish}.
 */
@Path("orders")
public class OrdersResource {

  @Inject private Payments payments;

  @POST
  @Path("{id}/paid")
  @Produces(MediaType.APPLICATION_JSON)
  public Response paid(
      @PathParam("id") String orderId,
      @QueryParam("publish") @DefaultValue("true") boolean publish) {
    if (!publish) {
      payments.recordPaid(orderId);
      return Response.noContent().build();
    }
    long messageId;
    try {
      messageId = payments.markPaid(orderId);
    } catch (EJBException e) {
      if (e.getCause() instanceof OutboxException refused && isBadMessage(refused)) {
        return Response.status(Response.Status.BAD_REQUEST)
            .type(MediaType.APPLICATION_JSON)
            .entity(Json.createObjectBuilder().add("error", refused.getMessage()).build())
            .build();
      }
      throw e;
    }
    return Response.status(Response.Status.CREATED)
        .entity(Json.createObjectBuilder().add("messageId", messageId).build())
        .build();
  }

  /** Refusals of the message itself: null, not serializable, group key too long. */
  private static boolean isBadMessage(OutboxException e) {
    String m = String.valueOf(e.getMessage());
    return m.startsWith("OUTBOXER-2002")
        || m.startsWith("OUTBOXER-2003")
        || m.startsWith("OUTBOXER-2004");
  }
}
