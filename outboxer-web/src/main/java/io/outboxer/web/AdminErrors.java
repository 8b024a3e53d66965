package io.outboxer.web;

import io.outboxer.OutboxException;
import jakarta.json.Json;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every error of the admin API as {@code {"error": "..."}}, its message starting with a stable id
 * where Outboxer refused the request, and never a stack trace.
 */
final class AdminErrors {

  private static final Logger LOG = Logger.getLogger(AdminErrors.class.getName());

  private AdminErrors() {}

  static Response error(int status, String message) {
    return Response.status(status)
        .type(MediaType.APPLICATION_JSON)
        .entity(Json.createObjectBuilder().add("error", message).build())
        .build();
  }

  /** Refusals of the admin calls and of the API's own checks. */
  @Provider
  public static class Refused implements ExceptionMapper<OutboxException> {
    @Override
    public Response toResponse(OutboxException e) {
      String message = String.valueOf(e.getMessage());
      int status;
      if (message.startsWith("OUTBOXER-2005") || message.startsWith("OUTBOXER-4001")) {
        status = 404;
      } else if (message.startsWith("OUTBOXER-4002")) {
        status = 409;
      } else {
        status = 400;
      }
      return error(status, message);
    }
  }

  /** What JAX-RS itself answers: an unknown path, a wrong method, a body it cannot read. */
  @Provider
  public static class Http implements ExceptionMapper<WebApplicationException> {
    @Override
    public Response toResponse(WebApplicationException e) {
      Response.StatusType status = e.getResponse().getStatusInfo();
      return error(status.getStatusCode(), status.getReasonPhrase());
    }
  }

  /** Anything else: logged here, named only by its type to the caller. */
  @Provider
  public static class Unexpected implements ExceptionMapper<RuntimeException> {
    @Override
    public Response toResponse(RuntimeException e) {
      LOG.log(Level.SEVERE, "OUTBOXER-4100 the admin API failed", e);
      return error(500, "OUTBOXER-4100 the admin API failed; the server log has the details");
    }
  }
}
