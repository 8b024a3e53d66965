package io.outboxer.it.support;

import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.transaction.UserTransaction;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.naming.InitialContext;

/**
 * A transaction that published and stays open on a thread of its own until the test ends it:
 * commit, roll back, or (its connection terminated under it) learn that it failed.
 */
public final class OpenTransaction {

  private final CompletableFuture<Long> published = new CompletableFuture<>();
  private final CompletableFuture<Boolean> commit = new CompletableFuture<>();
  private final Future<Long> ended;

  private OpenTransaction(LongSupplier publish) throws Exception {
    ManagedExecutorService executor =
        InitialContext.doLookup("java:comp/DefaultManagedExecutorService");
    ended =
        executor.submit(
            () -> {
              UserTransaction tx = InitialContext.doLookup("java:comp/UserTransaction");
              tx.begin();
              try {
                published.complete(publish.getAsLong());
                if (commit.get(120, TimeUnit.SECONDS)) {
                  tx.commit();
                } else {
                  tx.rollback();
                }
              } catch (Exception | Error e) {
                published.completeExceptionally(e);
                try {
                  tx.rollback();
                } catch (Exception alreadyEnded) {
                  e.addSuppressed(alreadyEnded);
                }
                throw e;
              }
              return published.get();
            });
  }

  /** Begins a transaction that runs {@code publish} and waits; returns once it published. */
  public static OpenTransaction publishing(LongSupplier publish) throws Exception {
    OpenTransaction open = new OpenTransaction(publish);
    open.published.get(30, TimeUnit.SECONDS);
    return open;
  }

  /** The id {@code publish} returned. */
  public long id() {
    return published.join();
  }

  /** Commits, and returns once the transaction ended. */
  public void commit() throws Exception {
    commit.complete(true);
    ended.get(30, TimeUnit.SECONDS);
  }

  /** Rolls back, and returns once the transaction ended. */
  public void rollback() throws Exception {
    commit.complete(false);
    ended.get(30, TimeUnit.SECONDS);
  }

  /** Asks to commit and returns how that ended: the future throws when the commit failed. */
  public Future<Long> tryCommit() {
    commit.complete(true);
    return ended;
  }
}
