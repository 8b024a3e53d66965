package io.outboxer;

/**
 * Thrown when Outboxer refuses a call or a configuration. The message starts with a stable id
 * ({@code OUTBOXER-nnnn}) and names what was wrong: the configuration key and value, the message
 * type, the limit.
 */
public class OutboxException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public OutboxException(String message) {
    super(message);
  }

  public OutboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
