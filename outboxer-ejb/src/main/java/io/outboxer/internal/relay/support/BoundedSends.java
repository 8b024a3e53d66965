package io.outboxer.internal.relay.support;

import io.outboxer.internal.rules.Deadline;
import io.outboxer.spi.DeliveryReport;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the sends of each relay call as a task of an executor and waits for it until the call's
 * deadline, so that the call returns by then whatever the destination does. A thread blocked in a
 * send cannot be relied on to return when its producer or connection is closed from another thread
 * (Kafka's producer, for one, first waits for its network thread, up to {@code
 * request.timeout.ms}), hence the task.
 *
 * <p>At the deadline the call reports what the task {@linkplain Settlement settled} by then (or,
 * when that is nothing, throws: the destination is unavailable); the task sends nothing more, what
 * it was waiting for stays unreported (pending, uncharged), and the action it registered with
 * {@link Settlement#onAbandon} runs on the executor to end its wait. Until that task has ended, the
 * partition's next call is refused as unavailable, so that one server never has two calls of a
 * partition under way.
 */
public final class BoundedSends {

  private static final Logger LOG = Logger.getLogger(BoundedSends.class.getName());

  private final ExecutorService executor;
  private final String destination;

  /** The task of each partition's last call, when it outlived its deadline. */
  private final Map<Integer, Future<?>> overdue = new ConcurrentHashMap<>();

  /**
   * @param executor runs the tasks and the actions that end them, so it must run several at once
   *     (in the server, a managed executor)
   * @param destination names the destination in errors
   */
  public BoundedSends(ExecutorService executor, String destination) {
    this.executor = executor;
    this.destination = destination;
  }

  /**
   * Runs {@code sends} as a task and reports what it settled by the time it returned or {@code
   * deadline} passed, whichever came first.
   *
   * @param sends sends a batch, recording each outcome in the settlement as it is known; an
   *     exception means the destination is unavailable
   * @throws RuntimeException the task's exception, when it failed before settling anything
   * @throws IllegalStateException when the deadline passed before the task settled anything, or the
   *     partition's previous task is still under way
   */
  public DeliveryReport run(int partition, Deadline deadline, Consumer<Settlement> sends) {
    Future<?> earlier = overdue.get(partition);
    if (earlier != null && !earlier.isDone()) {
      throw new IllegalStateException(
          destination
              + " still blocked: a send of this partition's previous batch has not returned since"
              + " its deadline; nothing of this batch was sent");
    }
    overdue.remove(partition);
    if (deadline.passed()) {
      return DeliveryReport.builder().build(); // no time to send: the batch stays pending
    }
    Settlement settlement = new Settlement();
    Future<?> task = executor.submit(() -> sends.accept(settlement));
    try {
      task.get(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
      return settlement.end();
    } catch (ExecutionException e) {
      DeliveryReport settled = settlement.end();
      if (settled.confirmed().isEmpty() && settled.failed().isEmpty()) {
        throw e.getCause() instanceof RuntimeException cause
            ? cause
            : new IllegalStateException(destination + ": " + e.getCause(), e.getCause());
      }
      return settled; // the rest waits for the next call, no attempt charged
    } catch (TimeoutException e) {
      return abandon(partition, task, settlement);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return abandon(partition, task, settlement);
    }
  }

  /**
   * Ends the sending at the deadline: reports what was settled, or, when nothing was, throws that
   * the destination is unavailable, so that the partition backs off.
   */
  private DeliveryReport abandon(int partition, Future<?> task, Settlement settlement) {
    overdue.put(partition, task);
    DeliveryReport settled = settlement.end();
    Runnable action = settlement.abandon();
    if (action != null) {
      executor.execute(
          () -> {
            try {
              action.run();
            } catch (RuntimeException e) {
              LOG.log(Level.FINE, "ending a send to " + destination + " failed", e);
            }
          });
    }
    if (settled.confirmed().isEmpty() && settled.failed().isEmpty()) {
      throw new IllegalStateException(
          destination
              + " did not answer by the call's deadline; nothing of the batch was settled and"
              + " the send under way was abandoned");
    }
    return settled;
  }
}
