package io.outboxer.it.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.it.relay.Journal;
import io.outboxer.it.relay.Journal.Attempt;
import io.outboxer.it.support.Deployments;
import io.outboxer.it.support.ItEvents;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * serialize-writes: concurrent transactions publishing to one group are delivered in commit order.
 * Each transaction waits a random time between publishing and committing, so without the group lock
 * a later id often commits, and is delivered, before an earlier one.
 */
@ExtendWith(ArquillianExtension.class)
class WritersIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(WritersIT.class);
  }

  @Inject Outbox outbox;

  @Test
  void concurrentPublishersOfOneGroupAreDeliveredInCommitOrder() throws Exception {
    String group = "writers-" + UUID.randomUUID();
    ManagedExecutorService executor =
        (ManagedExecutorService)
            new InitialContext().lookup("java:comp/DefaultManagedExecutorService");
    List<Future<Long>> publishers = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      int seq = i;
      publishers.add(
          executor.submit(
              () -> {
                UserTransaction tx =
                    (UserTransaction) new InitialContext().lookup("java:comp/UserTransaction");
                tx.begin();
                long id = outbox.publish(new ItEvents.Serial(group, seq));
                Thread.sleep(ThreadLocalRandom.current().nextLong(0, 150)); // work before commit
                tx.commit();
                return id;
              }));
    }
    List<Long> ids = new ArrayList<>();
    for (Future<Long> f : publishers) {
      ids.add(f.get());
    }

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> Journal.delivered(Journal.ofGroupsStartingWith(group)).size() >= 16);

    List<Long> delivered =
        Journal.delivered(Journal.ofGroupsStartingWith(group)).stream().map(Attempt::id).toList();
    assertThat(delivered).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(delivered).as("delivered in id order, which the lock made commit order").isSorted();
  }
}
