package io.outboxer.it.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.Inbox;
import io.outboxer.OutboxException;
import io.outboxer.it.support.Deployments;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The consumer side's deduplication on the suite's database: redelivered duplicates, an older id
 * after a newer one, and consumers racing on one group.
 */
@ExtendWith(ArquillianExtension.class)
class InboxIT {

  @Deployment
  static EnterpriseArchive deployment() {
    return Deployments.outboxerWith(InboxIT.class);
  }

  @Inject Inbox inbox;
  @Inject UserTransaction tx;

  private final String group = "inbox-" + UUID.randomUUID();

  /** Claims in a transaction of its own, committed. */
  private boolean claim(String outbox, String groupKey, long id) throws Exception {
    tx.begin();
    try {
      return inbox.claim(outbox, groupKey, id);
    } finally {
      tx.commit();
    }
  }

  @Test
  void aRedeliveredMessageIsADuplicate() throws Exception {
    assertThat(claim("orders", group, 1)).as("first delivery").isTrue();
    assertThat(claim("orders", group, 1)).as("redelivery").isFalse();
    assertThat(claim("orders", group, 2)).as("the next message").isTrue();
    assertThat(claim("orders", group, 2)).as("its redelivery").isFalse();
  }

  @Test
  void anOlderIdAfterANewerOneIsADuplicateAndGroupsAndOutboxesAreApart() throws Exception {
    assertThat(claim("orders", group, 5)).isTrue();
    assertThat(claim("orders", group, 3)).as("older than the last processed").isFalse();
    assertThat(claim("orders", group, 5)).isFalse();
    assertThat(claim("orders", group, 6)).isTrue();

    assertThat(claim("orders", group + "-other", 3)).as("another group").isTrue();
    assertThat(claim("payments", group, 3)).as("the same group of another outbox").isTrue();
  }

  @Test
  void aClaimRolledBackWithItsWorkLeavesTheMessageNew() throws Exception {
    tx.begin();
    assertThat(inbox.claim("orders", group, 1)).isTrue();
    tx.rollback();

    assertThat(claim("orders", group, 1)).as("processing failed: the redelivery is new").isTrue();
    assertThat(claim("orders", group, 1)).isFalse();
  }

  @Test
  void ofConcurrentDuplicatesExactlyOneIsNew() throws Exception {
    // Threads of their own (the managed executor's pool may have fewer threads than consumers),
    // with the application's context, so that each looks up its own UserTransaction.
    ManagedThreadFactory threads = InitialContext.doLookup("java:comp/DefaultManagedThreadFactory");
    int consumers = 6;
    ExecutorService executor = Executors.newFixedThreadPool(consumers, threads);
    try {
      claimTogether(executor, consumers);
    } finally {
      executor.shutdownNow();
    }
  }

  private void claimTogether(ExecutorService executor, int consumers) throws Exception {
    for (long id = 1; id <= 5; id++) {
      long message = id;
      CyclicBarrier together = new CyclicBarrier(consumers);
      List<Future<Boolean>> claims = new ArrayList<>();
      for (int c = 0; c < consumers; c++) {
        claims.add(
            executor.submit(
                () -> {
                  UserTransaction own = InitialContext.doLookup("java:comp/UserTransaction");
                  together.await(30, TimeUnit.SECONDS);
                  own.begin();
                  try {
                    return inbox.claim("orders", group, message);
                  } finally {
                    own.commit();
                  }
                }));
      }
      int fresh = 0;
      for (Future<Boolean> claim : claims) {
        fresh += claim.get(60, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(fresh).as("consumers that saw message %d as new", message).isEqualTo(1);
    }
  }

  @Test
  void refusalsNameTheProblem() throws Exception {
    assertThatThrownBy(() -> inbox.claim("orders", group, 1))
        .isInstanceOf(OutboxException.class)
        .hasMessageStartingWith("OUTBOXER-5001 Inbox.claim(message 1 of group " + group)
        .hasMessageContaining("needs an active JTA transaction");
    tx.begin();
    try {
      assertThatThrownBy(() -> inbox.claim("orders", null, 1))
          .isInstanceOf(OutboxException.class)
          .hasMessageStartingWith(
              "OUTBOXER-5002 Inbox.claim(message 1 of group null in outbox orders)")
          .hasMessageContaining("needs a group key");
      assertThatThrownBy(() -> inbox.claim("orders", group, 0))
          .hasMessageStartingWith("OUTBOXER-5003")
          .hasMessageEndingWith("message ids start at 1");
      assertThatThrownBy(() -> inbox.claim("orders", "g".repeat(501), 1))
          .hasMessageStartingWith("OUTBOXER-5003")
          .hasMessageContaining("the group key has 501 characters; it must have 1 to 500");
      assertThatThrownBy(() -> inbox.claim("", group, 1))
          .hasMessageStartingWith("OUTBOXER-5003")
          .hasMessageContaining("the outbox name must have 1 to 100 characters");
    } finally {
      tx.rollback();
    }
  }
}
