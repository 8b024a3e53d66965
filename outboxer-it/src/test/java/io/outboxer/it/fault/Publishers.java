package io.outboxer.it.fault;

import io.outboxer.it.setup.DemoClient;
import io.outboxer.it.setup.LibertyServer;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Clients paying orders through the demo application of whichever servers are {@linkplain #target
 * targeted}, each payment one message in the group {@code order:<order>}, until {@linkplain #stop
 * stopped}. Every answer goes into the {@link Ledger}: the message id of a payment answered 201 as
 * committed, anything else (an error, a connection refused or reset) as unanswered.
 */
public final class Publishers implements AutoCloseable {

  private final Ledger ledger;
  private final int groups;
  private final List<LibertyServer> targets = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopped;

  /**
   * @param groups how many orders (groups) the payments spread over
   */
  public Publishers(Ledger ledger, int groups) {
    this.ledger = ledger;
    this.groups = groups;
  }

  /** Sends payments to {@code server} too. */
  public void target(LibertyServer server) {
    targets.add(server);
  }

  /** Sends no new payment to {@code server}. */
  public void spare(LibertyServer server) {
    targets.remove(server);
  }

  /** Starts {@code clients} clients, each paying one order after the other. */
  public void start(int clients) {
    stopped = false;
    for (int i = 0; i < clients; i++) {
      Thread t = new Thread(this::payOrders, "fault-publisher-" + i);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  private void payOrders() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!stopped) {
      List<LibertyServer> now = List.copyOf(targets);
      if (now.isEmpty()) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        continue;
      }
      LibertyServer server = now.get(random.nextInt(now.size()));
      String order = "g" + random.nextInt(groups);
      try {
        HttpResponse<String> answer = server.post("/demo/orders/" + order + "/paid", null);
        if (answer.statusCode() == 201) {
          ledger.committed(
              DemoClient.json(answer.body()).getJsonNumber("messageId").longValue(),
              "order:" + order);
          continue;
        }
        ledger.unanswered();
      } catch (Exception e) {
        ledger.unanswered();
      }
      // A server that is down answers at once: pace the retries rather than spin.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }

  /** Stops every client and waits for its last payment's answer. */
  public void stop() throws InterruptedException {
    stopped = true;
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(120));
    }
    threads.clear();
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
