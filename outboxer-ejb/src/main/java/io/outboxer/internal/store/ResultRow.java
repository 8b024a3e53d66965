package io.outboxer.internal.store;

import jakarta.persistence.Tuple;
import java.time.Instant;

/**
 * A row a statement returned, its columns read by the names the statement gives them (the dialects'
 * statements name every column the same way).
 */
record ResultRow(Tuple tuple) {

  String text(String column) {
    return (String) tuple.get(column);
  }

  long number(String column) {
    return ((Number) tuple.get(column)).longValue();
  }

  int integer(String column) {
    return ((Number) tuple.get(column)).intValue();
  }

  /** The column's number, or null where it is null. */
  Long numberOrNull(String column) {
    Object value = tuple.get(column);
    return value == null ? null : ((Number) value).longValue();
  }

  /** The column's number, or null where it is null. */
  Integer integerOrNull(String column) {
    Object value = tuple.get(column);
    return value == null ? null : ((Number) value).intValue();
  }

  /** The column's milliseconds since the epoch as an instant, or null where it is null. */
  Instant instant(String column) {
    Long millis = numberOrNull(column);
    return millis == null ? null : Instant.ofEpochMilli(millis);
  }
}
