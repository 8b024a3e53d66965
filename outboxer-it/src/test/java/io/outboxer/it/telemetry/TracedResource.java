package io.outboxer.it.telemetry;

import io.outboxer.Outbox;
import io.outboxer.it.support.ItEvents;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

/**
 * Publishes a message in a JAX-RS request: mpTelemetry gives the request a span, joined to the
 * caller's trace when the request carries a {@code traceparent} header.
 */
@Path("publish")
@RequestScoped
public class TracedResource {

  @Inject Outbox outbox;

  /** Publishes one message to it-kafka and answers its id. */
  @POST
  @Path("kafka/{group}")
  @Transactional
  public String kafka(@PathParam("group") String group) {
    return Long.toString(outbox.publish(new ItEvents.Kafka(group, 0)));
  }
}
