package io.outboxer.web;

import io.outboxer.MessageDetails;
import io.outboxer.MessageState;
import io.outboxer.OutboxAdmin;
import io.outboxer.OutboxCounts;
import io.outboxer.OutboxException;
import io.outboxer.PartitionLease;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code /outboxer/admin/outboxes}: what each outbox holds, who delivers its partitions, its dead,
 * held and retrying messages, and the repairs (retry, discard, release a group). Every repair wakes
 * the partitions it touched.
 */
@Path("outboxes")
@Produces(MediaType.APPLICATION_JSON)
@RequestScoped
public class OutboxesResource {

  @Inject private OutboxAdmin admin;
  @Inject private CountsHistory history;

  /** One outbox's counts. */
  public record OutboxSummary(String name, long pending, long retrying, long held, long dead) {}

  /** One partition: its counts and its lease. */
  public record PartitionView(
      int partition,
      long pending,
      long retrying,
      long held,
      long dead,
      String owner,
      long epoch,
      Instant leaseExpiresAt) {}

  /** One outbox with its partitions. */
  public record OutboxView(
      String name,
      long pending,
      long retrying,
      long held,
      long dead,
      List<PartitionView> partitions) {}

  /** A page of messages; {@code next} is the {@code after} of the next page, or null. */
  public record MessagePage(List<MessageDetails> messages, Long next) {}

  /** What a repair did. */
  public record Changed(int messages) {}

  @GET
  public List<OutboxSummary> outboxes() {
    return admin.outboxes().stream()
        .map(this::counted)
        .map(c -> new OutboxSummary(c.outbox(), c.pending(), c.retrying(), c.held(), c.dead()))
        .toList();
  }

  @GET
  @Path("{outbox}")
  public OutboxView outbox(@PathParam("outbox") String outbox) {
    OutboxCounts counts = counted(outbox);
    Map<Integer, PartitionLease> leases =
        admin.leases(outbox).stream()
            .collect(Collectors.toMap(PartitionLease::partition, Function.identity()));
    List<PartitionView> partitions =
        counts.partitions().stream()
            .map(
                p -> {
                  PartitionLease lease = leases.get(p.partition());
                  return new PartitionView(
                      p.partition(),
                      p.pending(),
                      p.retrying(),
                      p.held(),
                      p.dead(),
                      lease == null ? null : lease.owner(),
                      lease == null ? 0 : lease.epoch(),
                      lease == null ? null : lease.expiresAt());
                })
            .toList();
    return new OutboxView(
        outbox, counts.pending(), counts.retrying(), counts.held(), counts.dead(), partitions);
  }

  @GET
  @Path("{outbox}/history")
  public List<CountsHistory.Sample> history(@PathParam("outbox") String outbox) {
    admin.counts(outbox);
    return history.of(outbox);
  }

  @GET
  @Path("{outbox}/messages")
  public MessagePage messages(
      @PathParam("outbox") String outbox,
      @QueryParam("state") @DefaultValue("dead") String state,
      @QueryParam("after") @DefaultValue("0") String after,
      @QueryParam("limit") @DefaultValue("50") String limit) {
    int size = parseLimit(limit);
    List<MessageDetails> page =
        admin.messages(outbox, parseState(state), id("after", after, 0), size);
    return new MessagePage(page, page.size() < size ? null : page.get(page.size() - 1).id());
  }

  @POST
  @Path("{outbox}/messages/{id}/retry")
  public Changed retry(@PathParam("outbox") String outbox, @PathParam("id") String id) {
    admin.retryDead(outbox, messageId(id));
    return new Changed(1);
  }

  @DELETE
  @Path("{outbox}/messages/{id}")
  public Changed discard(@PathParam("outbox") String outbox, @PathParam("id") String id) {
    admin.discard(outbox, messageId(id));
    return new Changed(1);
  }

  /** Revives the outbox's dead messages, or those of one group. */
  @POST
  @Path("{outbox}/retry-dead")
  public Changed retryDead(@PathParam("outbox") String outbox, @QueryParam("group") String group) {
    return new Changed(
        group == null ? admin.retryDead(outbox) : admin.retryDeadGroup(outbox, group));
  }

  @POST
  @Path("{outbox}/release")
  public Changed release(@PathParam("outbox") String outbox, @QueryParam("group") String group) {
    return new Changed(admin.releaseGroup(outbox, group));
  }

  private OutboxCounts counted(String outbox) {
    OutboxCounts counts = admin.counts(outbox);
    history.record(counts);
    return counts;
  }

  private static long messageId(String value) {
    return id("id", value, 1);
  }

  private static long id(String name, String value, long min) {
    try {
      long id = Long.parseLong(value);
      if (id >= min) {
        return id;
      }
    } catch (NumberFormatException e) {
      // refused below, as a number out of range is
    }
    throw new OutboxException(
        "OUTBOXER-4005 '"
            + name
            + "' must be a message id, a whole number of at least "
            + min
            + ", not '"
            + value
            + "'");
  }

  private static int parseLimit(String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new OutboxException(
          "OUTBOXER-4003 a page holds 1 to "
              + OutboxAdmin.MAX_PAGE
              + " messages, not '"
              + value
              + "'");
    }
  }

  private static MessageState parseState(String value) {
    try {
      return MessageState.valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new OutboxException(
          "OUTBOXER-4006 'state' is one of "
              + Arrays.stream(MessageState.values())
                  .map(s -> s.name().toLowerCase(Locale.ROOT))
                  .toList()
              + ", not '"
              + value
              + "'");
    }
  }
}
