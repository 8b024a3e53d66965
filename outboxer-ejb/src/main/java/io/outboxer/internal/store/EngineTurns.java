package io.outboxer.internal.store;

import io.outboxer.OutboxException;
import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * Runs each {@link EngineTransaction} in its turn where the database has one writer (SQLite): one
 * engine transaction at a time, in the order they asked, each from before its transaction begins
 * until after it completed and its connection went back to the pool. So at most one of the engine's
 * threads waits in the pool of one connection, and none takes the connection while another engine
 * thread is still giving it back: Liberty's pool drops a release made while an earlier release of
 * the same connection is under way, and the connection then stays reserved for good (ADR 0018).
 * Outside of {@code @Transactional}, which it wraps.
 */
@EngineTransaction
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class EngineTurns {

  /**
   * The longest an engine transaction waits for its turn: far above the time that every partition
   * of a busy server needs to take its turn once, so that only a stall reaches it.
   */
  static final Duration TURN_WAIT = Duration.ofSeconds(30);

  /**
   * The one turn, shared by every store of the application's engine (an interceptor instance serves
   * one bean): fair, so that the partitions take their turns in the order they asked; reentrant, so
   * that an engine transaction that calls another store method keeps its turn.
   */
  private static final ReentrantLock TURN = new ReentrantLock(true);

  private static final Logger LOG = Logger.getLogger(EngineTurns.class.getName());

  @Inject private Database database;
  @Resource private TransactionSynchronizationRegistry transactions;

  @AroundInvoke
  Object inTurn(InvocationContext call) throws Exception {
    // A call that joins its caller's transaction (a test driving the store) takes no connection of
    // its own: it uses the one the caller holds, and waiting for a turn there could wait for a
    // worker that waits for that very connection.
    if (!database.dialect().oneWriter()
        || transactions.getTransactionStatus() != Status.STATUS_NO_TRANSACTION) {
      return call.proceed();
    }
    if (!TURN.tryLock(TURN_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new OutboxException(
          "OUTBOXER-3012 "
              + call.getMethod().getName()
              + " waited "
              + TURN_WAIT.toSeconds()
              + " s for its turn on the database ("
              + database.description()
              + ") and gave up; the engine tries again at its next poll");
    }
    try {
      return call.proceed();
    } catch (RuntimeException e) {
      if (noConnectionCame(e)) {
        healPool(call, e);
      }
      throw e;
    } finally {
      TURN.unlock();
    }
  }

  /**
   * True when {@code failure} says that the pool gave no connection within its {@code
   * connectionTimeout} ({@code J2CA0045E}).
   */
  static boolean noConnectionCame(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t.getClass().getName().endsWith("ResourceAllocationException")
          || String.valueOf(t.getMessage()).contains("J2CA0045E")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The engine held its turn and still got no connection within the pool's timeout: on a database
   * whose pool holds one connection, only a transaction of the application could hold it, and one
   * that runs that long is as good as lost, or the pool lost track of its connection (ADR 0018).
   * Either way nothing would free it: the pool's connections are aborted, which rolls back what
   * still ran on them, and the pool opens a new one.
   */
  private void healPool(InvocationContext call, RuntimeException failure) {
    try {
      if (database.purgePool()) {
        LOG.warning(
            "OUTBOXER-3016 "
                + call.getMethod().getName()
                + " got no connection of jdbc/outboxer within the pool's connectionTimeout while"
                + " the engine held its turn: the pool's connection was aborted, and the pool"
                + " opens a new one (ADR 0018)");
      }
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }
}
