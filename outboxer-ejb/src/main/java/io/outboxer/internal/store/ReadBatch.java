package io.outboxer.internal.store;

import io.outboxer.spi.Envelope;
import java.util.List;

/**
 * A batch read.
 *
 * @param envelopes the messages to deliver, in id order; none when nothing is due
 * @param start where the read started, with the repair count it saw, from which the worker derives
 *     where its next read may start
 * @param full true when the read found as many ready rows as it asked for, so that more may be
 *     ready behind them; false when it found every row that was ready
 */
public record ReadBatch(List<Envelope> envelopes, ReadStart start, boolean full) {}
