package io.outboxer.internal.rules;

import io.outboxer.spi.Envelope;
import java.util.List;

/**
 * A batch read, as {@link BatchSelection} decided it.
 *
 * @param envelopes the messages to deliver, in id order; none when nothing is due
 * @param start where the next read starts while this batch's rows stay as they are (nothing was
 *     due, or the batch was not delivered), with the repair count the read saw
 * @param full true when the read found as many ready rows as it asked for, or ended its transaction
 *     with rows still to read, so that more may be ready behind them; false when it found every row
 *     that was ready
 */
public record ReadBatch(List<Envelope> envelopes, ReadStart start, boolean full) {

  /**
   * Where the read after this batch's {@code completion} starts: past the batch when the completion
   * deleted all its rows, as none of them can become ready again by this worker; otherwise from the
   * first ready row, where the rows it failed, released or left pending lie.
   */
  public ReadStart startAfter(Completion completion) {
    return completion.deletesAll(envelopes.size())
        ? start.past(envelopes.get(envelopes.size() - 1).id())
        : start.fromFirstRow();
  }
}
