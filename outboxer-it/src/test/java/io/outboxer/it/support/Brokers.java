package io.outboxer.it.support;

import java.net.URI;
import org.eclipse.microprofile.config.ConfigProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Where the suite's brokers listen, as the test server was told (the variables {@code
 * it.kafka.bootstrap} and {@code it.sqs.endpoint}); for code that runs inside the server.
 */
public final class Brokers {

  private Brokers() {}

  public static String kafkaBootstrap() {
    return ConfigProvider.getConfig().getValue("it.kafka.bootstrap", String.class);
  }

  public static String sqsEndpoint() {
    return ConfigProvider.getConfig().getValue("it.sqs.endpoint", String.class);
  }

  /** A client of the suite's SQS server. */
  public static SqsClient sqs() {
    return SqsClient.builder()
        .httpClient(UrlConnectionHttpClient.create())
        .endpointOverride(URI.create(sqsEndpoint()))
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("outboxer", "outboxer")))
        .build();
  }
}
