package io.outboxer;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the outbox an {@link OutboxMessage} type is published to. A message type without this
 * annotation goes to the outbox {@code "default"}.
 *
 * <p>Each outbox is configured under {@code outboxer.outbox.<name>.*} (ordering, partitions,
 * retries, relay); see the configuration reference.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Outboxed {

  /** The outbox's name: letters, digits, '-' and '_', at most 100 characters. */
  String value();
}
