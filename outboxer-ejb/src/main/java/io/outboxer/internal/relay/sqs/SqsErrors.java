package io.outboxer.internal.relay.sqs;

import java.util.Collection;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * Whose fault an SQS refusal is. A message is charged only for a refusal of its own content; a
 * refusal of the destination (a queue that does not exist, its KMS key disabled, missing or out of
 * reach, credentials SQS does not take) is an outage, though SQS answers it with HTTP 400 like a
 * content refusal. SQS names the error in two spellings, its JSON protocol's ({@code
 * QueueDoesNotExist}, {@code KmsDisabled}) and its query protocol's ({@code
 * AWS.SimpleQueueService.NonExistentQueue}, {@code KMS.DisabledException}): both are known.
 */
final class SqsErrors {

  /** Codes of a refusal of the queue, its key or the caller, whatever the message. */
  private static final Set<String> DESTINATION =
      Set.of(
          "QueueDoesNotExist",
          "AWS.SimpleQueueService.NonExistentQueue",
          "QueueDeletedRecently",
          "AWS.SimpleQueueService.QueueDeletedRecently",
          "UnsupportedOperation",
          "AWS.SimpleQueueService.UnsupportedOperation",
          "KmsAccessDenied",
          "KmsDisabled",
          "KmsInvalidKeyUsage",
          "KmsInvalidState",
          "KmsNotFound",
          "KmsOptInRequired",
          "KmsThrottled",
          "KMS.AccessDeniedException",
          "KMS.DisabledException",
          "KMS.InvalidKeyUsageException",
          "KMS.InvalidStateException",
          "KMS.KMSInvalidStateException",
          "KMS.NotFoundException",
          "KMS.OptInRequired",
          "KMS.ThrottlingException",
          "AccessDenied",
          "AccessDeniedException",
          "InvalidClientTokenId",
          "InvalidSecurity",
          "SignatureDoesNotMatch",
          "UnrecognizedClientException",
          "RequestExpired",
          "RequestThrottled");

  /** Codes of a refusal of a message's content: charged even when every entry has it. */
  private static final Set<String> CONTENT =
      Set.of(
          "InvalidMessageContents",
          "InvalidAttributeValue",
          "InvalidAttributeName",
          "InvalidParameterValue",
          "MessageTooLong",
          "BatchRequestTooLong",
          "AWS.SimpleQueueService.BatchRequestTooLong",
          "InvalidParameterValueException",
          "InvalidAttributeValueException");

  private SqsErrors() {}

  /**
   * True when SQS refused a whole request for its content: HTTP 400, neither throttling nor the
   * destination's refusal. Such a request is halved until the refusal is pinned to its entry.
   */
  static boolean refusesContent(SdkException failure) {
    return failure instanceof AwsServiceException service
        && service.statusCode() == 400
        && !service.isThrottlingException()
        && !(service instanceof QueueDoesNotExistException)
        && !DESTINATION.contains(code(service));
  }

  /**
   * True when an entry's error is its message's own: a sender fault whose code is not the
   * destination's. An error SQS marks as its own fault (not the sender's) charges nothing.
   */
  static boolean refusesEntry(BatchResultErrorEntry error) {
    return Boolean.TRUE.equals(error.senderFault()) && !DESTINATION.contains(error.code());
  }

  /**
   * True when {@code codes}, the refusals of every entry of a request of more than one, are one
   * code that is not known as a content refusal: a refusal every message shares is the
   * destination's.
   */
  static boolean sharedByAll(Collection<String> codes, int entries) {
    return entries > 1
        && codes.size() == entries
        && codes.stream().distinct().count() == 1
        && !CONTENT.contains(codes.iterator().next());
  }

  /** The error code SQS gave, or "" when it gave none. */
  static String code(AwsServiceException service) {
    return service.awsErrorDetails() == null || service.awsErrorDetails().errorCode() == null
        ? ""
        : service.awsErrorDetails().errorCode();
  }
}
