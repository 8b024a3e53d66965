package io.outboxer.bench.jms;

import io.outboxer.bench.LimitStatements;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.Queue;
import jakarta.jms.TextMessage;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * The limit pipeline into JMS, without Outboxer. It runs in the server because the embedded
 * messaging engine serves clients of its own server only: the bench deploys it beside the demo EAR
 * as a WAR of this class alone ({@code bench-limit}). {@code POST /bench-limit/jms/drain?outbox=
 * &partitions=&batch=} drains the outbox's rows as the Kafka limit pipeline does: one task per
 * partition, each with its own connection of the server's {@code jdbc/outboxer} and its own {@code
 * JMSContext}, reads a batch of the partition's ready rows in id order (the statement and index
 * Outboxer's worker reads with), sends each as a persistent {@code TextMessage} with the JMS
 * relay's properties to {@code jms/bench/queue}, a send returning once the engine took the message
 * for good, and deletes the batch's rows in one statement; it answers the messages sent once every
 * partition read an empty batch. {@code POST /bench-limit/jms/purge} empties the queue and answers
 * how many messages it held.
 */
@WebServlet("/jms/*")
public class JmsLimitServlet extends HttpServlet {

  @Resource(lookup = "jdbc/outboxer", shareable = false)
  private DataSource dataSource;

  @Resource(lookup = "jms/outboxer/ConnectionFactory")
  private ConnectionFactory factory;

  @Resource(lookup = "jms/bench/queue")
  private Queue queue;

  @Resource private ManagedExecutorService executor;

  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    long count;
    try {
      if ("/purge".equals(request.getPathInfo())) {
        count = purge();
      } else if ("/drain".equals(request.getPathInfo())) {
        count =
            drain(
                request.getParameter("outbox"),
                Integer.parseInt(request.getParameter("partitions")),
                Integer.parseInt(request.getParameter("batch")));
      } else {
        response.sendError(404, "POST /jms/drain or /jms/purge");
        return;
      }
    } catch (Exception e) {
      StringBuilder why = new StringBuilder(e.toString());
      for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
        why.append(" caused by ").append(cause);
      }
      response.sendError(500, why.toString());
      return;
    }
    response.setContentType("text/plain");
    response.getWriter().print(count);
  }

  private long drain(String outbox, int partitions, int batchSize) throws Exception {
    List<Future<Long>> runs = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      runs.add(executor.submit(() -> drainPartition(outbox, partition, batchSize)));
    }
    long sent = 0;
    try {
      for (Future<Long> run : runs) {
        sent += run.get();
      }
    } catch (ExecutionException e) {
      runs.forEach(run -> run.cancel(true));
      throw new IllegalStateException("a partition's drain failed", e.getCause());
    }
    return sent;
  }

  private long drainPartition(String outbox, int partition, int batchSize)
      throws SQLException, JMSException {
    long sent = 0;
    try (Connection c = dataSource.getConnection();
        PreparedStatement read = c.prepareStatement(LimitStatements.READ);
        PreparedStatement delete = c.prepareStatement(LimitStatements.DELETE_POSTGRESQL);
        JMSContext jms = factory.createContext()) {
      JMSProducer producer = jms.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT);
      read.setString(1, outbox);
      read.setInt(2, partition);
      read.setInt(3, batchSize);
      while (true) {
        List<Long> ids = new ArrayList<>(batchSize);
        try (ResultSet rows = read.executeQuery()) {
          while (rows.next()) {
            long id = rows.getLong(1);
            ids.add(id);
            producer.send(queue, message(jms, rows, id, outbox));
          }
        }
        if (ids.isEmpty()) {
          return sent;
        }
        Array array = c.createArrayOf("bigint", ids.toArray());
        delete.setArray(1, array);
        int deleted = delete.executeUpdate();
        if (deleted != ids.size()) {
          throw new IllegalStateException("deleted " + deleted + " of " + ids.size() + " rows");
        }
        sent += ids.size();
      }
    }
  }

  /** The message as the JMS relay writes it. */
  private static TextMessage message(JMSContext jms, ResultSet row, long id, String outbox)
      throws SQLException, JMSException {
    TextMessage message = jms.createTextMessage(row.getString(4));
    message.setLongProperty("OutboxerId", id);
    message.setStringProperty("OutboxerOutbox", outbox);
    message.setStringProperty("OutboxerType", row.getString(3));
    message.setIntProperty("OutboxerAttempt", row.getInt(5) + 1);
    String group = row.getString(2);
    if (group != null) {
      message.setStringProperty("OutboxerGroup", group);
      message.setStringProperty("JMSXGroupID", group);
      // As the JMS relay's JMSXGroupSeq: the id while it fits a positive int.
      message.setIntProperty("JMSXGroupSeq", (int) ((id - 1) % Integer.MAX_VALUE) + 1);
    }
    return message;
  }

  /** Receives every message of the queue, a thousand per local transaction. */
  private long purge() {
    long received = 0;
    try (JMSContext jms = factory.createContext(JMSContext.SESSION_TRANSACTED);
        JMSConsumer consumer = jms.createConsumer(queue)) {
      while (consumer.receive(1_000) != null) {
        if (++received % 1_000 == 0) {
          jms.commit();
        }
      }
      jms.commit();
    }
    return received;
  }
}
