package io.outboxer.internal.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import org.junit.jupiter.api.Test;

/** The traceparent recorded at publish, from the span active on the publishing thread. */
class CurrentTraceTest {

  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN = "00f067aa0ba902b7";

  @Test
  void noActiveSpanMeansNoTraceParent() {
    assertThat(CurrentTrace.traceParent()).isNull();
  }

  @Test
  void theActiveSpansContextInW3cFormat() {
    Span span =
        Span.wrap(
            SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), TraceState.getDefault()));
    try (Scope scope = span.makeCurrent()) {
      assertThat(CurrentTrace.traceParent()).isEqualTo("00-" + TRACE + "-" + SPAN + "-01");
    }
    assertThat(CurrentTrace.traceParent()).as("after the span's scope closed").isNull();
  }

  @Test
  void anUnsampledSpanKeepsItsFlags() {
    Span span =
        Span.wrap(
            SpanContext.create(TRACE, SPAN, TraceFlags.getDefault(), TraceState.getDefault()));
    try (Scope scope = span.makeCurrent()) {
      assertThat(CurrentTrace.traceParent()).isEqualTo("00-" + TRACE + "-" + SPAN + "-00");
    }
  }
}
