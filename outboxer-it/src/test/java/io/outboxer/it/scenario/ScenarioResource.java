package io.outboxer.it.scenario;

import static org.awaitility.Awaitility.await;

import io.outboxer.Outbox;
import io.outboxer.internal.store.RowState;
import io.outboxer.it.relay.Journal;
import io.outboxer.it.relay.Script;
import io.outboxer.it.support.ItEvents;
import io.outboxer.it.support.Sql;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code POST /it/scenario}: publishes a scenario to outbox it-random (3 partitions, max-attempts
 * 3, batches of 7) with the scripted relay failing each message's first attempts as told, waits
 * until nothing of it is pending, and answers what was published, what is dead and what the relay
 * delivered, in order; or, with status 500, why not and which of the run's rows are left.
 */
@Path("scenario")
public class ScenarioResource {

  private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");

  @Inject Outbox outbox;
  @Inject UserTransaction tx;

  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  @Produces(MediaType.APPLICATION_JSON)
  public Response run(Scenario scenario) {
    String run = "prop-" + UUID.randomUUID() + "-";
    try {
      return Response.ok(run(scenario, run)).build();
    } catch (Exception e) {
      // The property test shows the answer's body when it is not 200: why, and what was left.
      StringWriter failure = new StringWriter();
      e.printStackTrace(new PrintWriter(failure));
      try {
        if (tx.getStatus() != Status.STATUS_NO_TRANSACTION) {
          tx.rollback();
        }
      } catch (Exception rollbackFailed) {
        rollbackFailed.printStackTrace(new PrintWriter(failure));
      }
      try {
        failure.append("\nthe run's rows that are not dead:\n").append(pending(run));
        // Not left to be retried beside the tries that jqwik runs next, while it shrinks.
        deleteRows(run);
      } catch (Exception rowsUnknown) {
        rowsUnknown.printStackTrace(new PrintWriter(failure));
      }
      return Response.serverError().type(MediaType.TEXT_PLAIN).entity(failure.toString()).build();
    }
  }

  private JsonObject run(Scenario scenario, String run) throws Exception {
    Map<Integer, Integer> failures = new ConcurrentHashMap<>();
    for (int i = 0; i < scenario.messages.size(); i++) {
      failures.put(i, scenario.messages.get(i).failures);
    }
    Script.fail(
        "it-random",
        e -> {
          Matcher m = SEQ.matcher(e.payload());
          return e.payload().contains(run)
              && m.find()
              && e.attempt() <= failures.get(Integer.parseInt(m.group(1)));
        });

    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < scenario.messages.size(); i += scenario.perTransaction) {
      tx.begin();
      for (int j = i; j < Math.min(i + scenario.perTransaction, scenario.messages.size()); j++) {
        String group = scenario.messages.get(j).group;
        // The run id travels in the payload (group null) or in the group key.
        ids.add(outbox.publish(new ItEvents.Random(group == null ? null : run + group, j, run)));
      }
      tx.commit();
    }

    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(50))
        .pollInSameThread()
        .until(
            () ->
                Sql.number(
                        "select count(*) from outboxer_message where outbox = 'it-random'"
                            + " and state <> "
                            + RowState.DEAD.code()
                            + " and payload like ?",
                        "%" + run + "%")
                    == 0);

    JsonArrayBuilder published = Json.createArrayBuilder();
    ids.forEach(published::add);
    JsonArrayBuilder dead = Json.createArrayBuilder();
    for (Object[] row :
        Sql.query(
            "select id from outboxer_message where outbox = 'it-random' and state = "
                + RowState.DEAD.code()
                + " and payload like ?"
                + " order by id",
            "%" + run + "%")) {
      dead.add(((Number) row[0]).longValue());
    }
    JsonArrayBuilder delivered = Json.createArrayBuilder();
    for (Journal.Attempt a : Journal.delivered(Journal.ofOutbox("it-random"))) {
      if (a.envelope().payload().contains(run)) {
        JsonObjectBuilder d = Json.createObjectBuilder().add("id", a.id());
        delivered.add(d);
      }
    }
    deleteRows(run);
    return Json.createObjectBuilder()
        .add("published", published)
        .add("dead", dead)
        .add("delivered", delivered)
        .build();
  }

  private static void deleteRows(String run) {
    Sql.update(
        "delete from outboxer_message where outbox = 'it-random' and payload like ?",
        "%" + run + "%");
  }

  /** The run's rows that are not dead, one a line, for a failure's message. */
  private static String pending(String run) {
    StringBuilder rows = new StringBuilder();
    for (Object[] row :
        Sql.query(
            "select id, partition_no, group_key, state, attempts, next_attempt_at, last_error"
                + " from outboxer_message where outbox = 'it-random' and state <> "
                + RowState.DEAD.code()
                + " and payload like ? order by id",
            "%" + run + "%")) {
      rows.append(Arrays.toString(row)).append('\n');
    }
    return rows.toString();
  }
}
