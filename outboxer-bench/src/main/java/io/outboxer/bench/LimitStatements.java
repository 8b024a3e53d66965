package io.outboxer.bench;

/**
 * The statements of the limit pipelines, Kafka's in the bench's JVM and JMS's in the server:
 * compile-time constants, which the JMS limit pipeline's servlet takes in when it is compiled, so
 * that its WAR needs no class of the bench.
 */
public final class LimitStatements {

  /** A batch of a partition's ready rows in id order: the statement and index the worker uses. */
  public static final String READ =
      """
      select id, group_key, message_type, payload, attempts from outboxer_message
       where outbox = ? and partition_no = ? and state < 1
       order by state, id limit ?
      """;

  /** Deletes a batch's rows on PostgreSQL, its ids bound as one {@code bigint[]}. */
  public static final String DELETE_POSTGRESQL = "delete from outboxer_message where id = any(?)";

  private LimitStatements() {}
}
