package io.outboxer.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxer.OutboxException;
import io.outboxer.internal.rules.Ordering;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EngineConfigTest {

  private static EngineConfig read(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return EngineConfig.read(new MapConfig(map));
  }

  @Test
  void everyKeyHasADocumentedDefault() {
    EngineConfig settings = read("outboxer.outbox.orders.relay", "jms");

    assertThat(settings.pollInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(settings.createSchema()).isTrue();
    assertThat(settings.deliveryEnabled()).isTrue();
    assertThat(settings.leaseTtl()).isEqualTo(Duration.ofSeconds(30));
    OutboxConfig orders = settings.outbox("orders");
    assertThat(orders.ordering()).isEqualTo(Ordering.GROUP);
    assertThat(orders.partitions()).isEqualTo(1);
    assertThat(orders.retryPolicy().retriesForever()).isTrue();
    assertThat(orders.backoffMin()).isEqualTo(Duration.ofSeconds(1));
    assertThat(orders.backoffMax()).isEqualTo(Duration.ofSeconds(60));
    assertThat(orders.batchSize()).isEqualTo(2000);
    assertThat(orders.serializeWrites()).isFalse();
    assertThat(orders.waitForWriters()).isTrue();
    assertThat(orders.waitsForWriters()).isTrue();
  }

  @Test
  void workersWaitForWritersOnlyWhereAnOrderIsKeptAndWritersAreNotQueued() {
    EngineConfig settings =
        read(
            "outboxer.outbox.group.relay", "jms",
            "outboxer.outbox.total.relay", "jms",
            "outboxer.outbox.total.ordering", "total",
            "outboxer.outbox.none.relay", "jms",
            "outboxer.outbox.none.ordering", "none",
            "outboxer.outbox.serial.relay", "jms",
            "outboxer.outbox.serial.serialize-writes", "true",
            "outboxer.outbox.off.relay", "jms",
            "outboxer.outbox.off.wait-for-writers", "false");

    assertThat(settings.outbox("group").waitsForWriters()).isTrue();
    assertThat(settings.outbox("total").waitsForWriters()).isTrue();
    assertThat(settings.outbox("none").waitsForWriters()).isFalse();
    assertThat(settings.outbox("serial").waitsForWriters()).isFalse();
    assertThat(settings.outbox("off").waitsForWriters()).isFalse();
    assertThat(settings.warnings()).isEmpty();
  }

  @Test
  void readsEveryOutboxAndItsRelaySettings() {
    EngineConfig settings =
        read(
            "outboxer.outbox.orders.relay", "jms",
            "outboxer.outbox.orders.relay.jms.queue", "jms/q",
            "outboxer.outbox.orders.ordering", "total",
            "outboxer.outbox.orders.max-attempts", "3",
            "outboxer.outbox.orders.backoff.min", "500ms",
            "outboxer.outbox.orders.backoff.max", "2m",
            "outboxer.outbox.audit.relay", "JMS",
            "outboxer.outbox.audit.partitions", "8",
            "outboxer.outbox.audit.serialize-writes", "true");

    assertThat(settings.outboxes()).containsOnlyKeys("audit", "orders");
    OutboxConfig orders = settings.outbox("orders");
    assertThat(orders.ordering()).isEqualTo(Ordering.TOTAL);
    assertThat(orders.maxAttempts()).isEqualTo(3);
    assertThat(orders.backoffMin()).isEqualTo(Duration.ofMillis(500));
    assertThat(orders.backoffMax()).isEqualTo(Duration.ofMinutes(2));
    assertThat(orders.relaySettings()).containsExactly(Map.entry("queue", "jms/q"));
    OutboxConfig audit = settings.outbox("audit");
    assertThat(audit.relay()).isEqualTo("jms");
    assertThat(audit.partitions()).isEqualTo(8);
    assertThat(audit.serializeWrites()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "outboxer.outbox.o.ordering|random|OUTBOXER-1001 invalid configuration outboxer.outbox.o.ordering=random: expected group, total or none",
        "outboxer.outbox.o.partitions|0|OUTBOXER-1001 invalid configuration outboxer.outbox.o.partitions=0: expected a whole number from 1 to 1024",
        "outboxer.outbox.o.partitions|four|OUTBOXER-1001 invalid configuration outboxer.outbox.o.partitions=four: expected a whole number from 1 to 1024",
        "outboxer.outbox.o.max-attempts|0|OUTBOXER-1001 invalid configuration outboxer.outbox.o.max-attempts=0: expected infinity or a whole number of at least 1",
        "outboxer.outbox.o.backoff.min|10|OUTBOXER-1001 invalid configuration outboxer.outbox.o.backoff.min=10: expected a whole number with a unit of ms, s, m or h, such as 500ms or 30s",
        "outboxer.outbox.o.backoff.max|0s|OUTBOXER-1001 invalid configuration outboxer.outbox.o.backoff.max=0s: expected a duration above zero",
        "outboxer.outbox.o.batch-size|20000|OUTBOXER-1001 invalid configuration outboxer.outbox.o.batch-size=20000: expected a whole number from 1 to 10000",
        "outboxer.outbox.o.serialize-writes|yes|OUTBOXER-1001 invalid configuration outboxer.outbox.o.serialize-writes=yes: expected true or false",
        "outboxer.outbox.o.wait-for-writers|off|OUTBOXER-1001 invalid configuration outboxer.outbox.o.wait-for-writers=off: expected true or false",
        "outboxer.lease.ttl|soon|OUTBOXER-1001 invalid configuration outboxer.lease.ttl=soon: expected a whole number with a unit of ms, s, m or h, such as 500ms or 30s",
      })
  void aBadValueNamesTheKeyTheValueAndWhatIsExpected(String key, String value, String message) {
    assertThatThrownBy(() -> read("outboxer.outbox.o.relay", "jms", key, value))
        .isInstanceOf(OutboxException.class)
        .hasMessage(message);
  }

  @Test
  void totalOrderingRefusesMorePartitions() {
    assertThatThrownBy(
            () ->
                read(
                    "outboxer.outbox.o.relay", "jms",
                    "outboxer.outbox.o.ordering", "total",
                    "outboxer.outbox.o.partitions", "4"))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1001 invalid configuration outboxer.outbox.o.partitions=4: total ordering"
                + " keeps the whole outbox in one partition; remove the key or set it to 1");
  }

  @Test
  void backoffMaxBelowMinIsRefused() {
    assertThatThrownBy(
            () ->
                read(
                    "outboxer.outbox.o.relay", "jms",
                    "outboxer.outbox.o.backoff.min", "10s",
                    "outboxer.outbox.o.backoff.max", "5s"))
        .hasMessage(
            "OUTBOXER-1001 invalid configuration outboxer.outbox.o.backoff.max=5s: must not be"
                + " shorter than outboxer.outbox.o.backoff.min (10000ms)");
  }

  @Test
  void anOutboxWithoutRelayIsRefused() {
    assertThatThrownBy(() -> read("outboxer.outbox.o.partitions", "2"))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1002 missing configuration outboxer.outbox.o.relay: name the relay that"
                + " delivers this outbox's messages (jms, kafka, sqs or a RelayProvider's name)");
  }

  @Test
  void anInvalidOutboxNameIsRefused() {
    assertThatThrownBy(() -> read("outboxer.outbox.bad name.relay", "jms"))
        .hasMessage(
            "OUTBOXER-1003 invalid outbox name 'bad name' in configuration key"
                + " outboxer.outbox.bad name.relay: use 1 to 100 letters, digits, '-' or '_'");
  }

  @Test
  void anUnknownOutboxIsNamed() {
    assertThatThrownBy(() -> read("outboxer.outbox.orders.relay", "jms").outbox("audit"))
        .hasMessage(
            "OUTBOXER-2005 unknown outbox 'audit': configure it with outboxer.outbox.audit.relay"
                + " (configured outboxes: [orders])");
  }

  @Test
  void aMisspelledKeyIsWarnedOfWithTheKeyItWasMeantToBe() {
    EngineConfig settings =
        read(
            "outboxer.outbox.orders.relay", "jms",
            "outboxer.outbox.orders.max-attempt", "3",
            "outboxer.outbox.orders.relay.jms.queue", "jms/q",
            "outboxer.poll-intervall", "5s",
            "outboxer.lease.ttl", "20s",
            "outboxer.something-else-entirely", "x",
            "unrelated.key", "y");

    assertThat(settings.warnings())
        .containsExactlyInAnyOrder(
            "OUTBOXER-1009 unknown configuration key outboxer.outbox.orders.max-attempt: did you"
                + " mean outboxer.outbox.orders.max-attempts?",
            "OUTBOXER-1009 unknown configuration key outboxer.poll-intervall: did you mean"
                + " outboxer.poll-interval?",
            "OUTBOXER-1009 unknown configuration key outboxer.something-else-entirely");
    assertThat(settings.outbox("orders").retryPolicy().retriesForever())
        .as("the misspelled key is not read")
        .isTrue();
  }

  @Test
  void theShippedServerXmlsAdminCredentialsAreNotWarnedOf() {
    EngineConfig settings =
        read(
            "outboxer.outbox.orders.relay", "jms",
            "outboxer.outbox.orders.relay.jms.queue", "jms/q",
            "outboxer.admin.user", "admin",
            "outboxer.admin.password", "secret",
            "outboxer.admin.users", "admin");

    assertThat(settings.warnings())
        .containsExactly(
            "OUTBOXER-1009 unknown configuration key outboxer.admin.users: did you mean"
                + " outboxer.admin.user?");
  }

  @Test
  void theSettingsOfARelayTheOutboxDoesNotUseAreWarnedOf() {
    EngineConfig settings =
        read(
            "outboxer.outbox.orders.relay", "kafka",
            "outboxer.outbox.orders.relay.kafka.topic", "orders",
            "outboxer.outbox.orders.relay.kafka.bootstrap.servers", "k:9092",
            "outboxer.outbox.orders.relay.jms.queue", "jms/q");

    assertThat(settings.warnings())
        .containsExactly(
            "OUTBOXER-1010 configuration key outboxer.outbox.orders.relay.jms.queue is not read:"
                + " outbox 'orders' uses outboxer.outbox.orders.relay=kafka, whose settings are"
                + " outboxer.outbox.orders.relay.kafka.*");
  }

  @Test
  void outboxesListedInOneKeyAreConfiguredByEnvironmentVariablesAlone() {
    EngineConfig settings =
        read(
            "OUTBOXER_OUTBOXES", "orders, audit-log",
            "OUTBOXER_OUTBOX_ORDERS_RELAY", "kafka",
            "OUTBOXER_OUTBOX_ORDERS_PARTITIONS", "4",
            "OUTBOXER_OUTBOX_ORDERS_RELAY_KAFKA_TOPIC", "orders",
            "OUTBOXER_OUTBOX_ORDERS_RELAY_KAFKA_BOOTSTRAP_SERVERS", "k:9092",
            "OUTBOXER_OUTBOX_ORDERS_RELAY_KAFKA_TRANSACTIONAL_ID_PREFIX", "shop-",
            "OUTBOXER_OUTBOX_AUDIT_LOG_RELAY", "sqs",
            "OUTBOXER_OUTBOX_AUDIT_LOG_ORDERING", "total",
            "OUTBOXER_OUTBOX_AUDIT_LOG_RELAY_SQS_QUEUE_URL", "https://sqs/1/audit.fifo");

    assertThat(settings.outboxes()).containsOnlyKeys("orders", "audit-log");
    OutboxConfig orders = settings.outbox("orders");
    assertThat(orders.partitions()).isEqualTo(4);
    assertThat(orders.relaySettings())
        .containsOnly(
            Map.entry("topic", "orders"),
            Map.entry("bootstrap.servers", "k:9092"),
            Map.entry("transactional-id-prefix", "shop-"));
    assertThat(settings.outbox("audit-log").ordering()).isEqualTo(Ordering.TOTAL);
    assertThat(settings.outbox("audit-log").relaySettings())
        .containsOnly(Map.entry("queue-url", "https://sqs/1/audit.fifo"));
    assertThat(settings.warnings()).isEmpty();
  }

  @Test
  void anInvalidNameInTheListOfOutboxesIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> read("outboxer.outboxes", "orders,bad name"))
        .isInstanceOf(OutboxException.class)
        .hasMessage(
            "OUTBOXER-1003 invalid outbox name 'bad name' in configuration key outboxer.outboxes:"
                + " use 1 to 100 letters, digits, '-' or '_'");
  }
}
