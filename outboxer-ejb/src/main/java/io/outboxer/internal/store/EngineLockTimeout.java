package io.outboxer.internal.store;

import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.time.Duration;

/**
 * Bounds every lock wait of an engine transaction by one lease ttl (set by the engine at start:
 * {@link Database#boundLockWaits}), where the database waits for locks (PostgreSQL): a renewal or a
 * batch read queued for the lease row behind an operator's repair or an application's transaction
 * that stays open, or a wait for the statistics' turn, then fails (the lease has expired by then in
 * any case) and the worker tries again at its next poll, instead of holding its thread and a
 * connection for as long as the other transaction lasts. Runs inside the transaction that
 * {@code @Transactional} began, as its first statement.
 */
@EngineTransaction
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 300)
public class EngineLockTimeout {

  @Inject private NativeQueries sql;
  @Inject private Database database;

  @AroundInvoke
  Object bounded(InvocationContext call) throws Exception {
    Duration bound = database.lockWaits();
    if (bound != null && sql.has(Sql.ENGINE_LOCK_TIMEOUT)) {
      sql.column(Sql.ENGINE_LOCK_TIMEOUT, "timeout", Long.toString(bound.toMillis()));
    }
    return call.proceed();
  }
}
