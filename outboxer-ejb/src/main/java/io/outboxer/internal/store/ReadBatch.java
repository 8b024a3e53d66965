package io.outboxer.internal.store;

import io.outboxer.spi.Envelope;
import java.util.List;

/**
 * A batch read: its envelopes in id order (none when nothing is due), and where the read started,
 * with the repair count it saw, from which the worker derives where its next read may start.
 */
public record ReadBatch(List<Envelope> envelopes, ReadStart start) {

  public ReadBatch {
    envelopes = List.copyOf(envelopes);
  }
}
