package io.outboxer.internal.telemetry;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.HashMap;
import java.util.Map;

/**
 * The W3C {@code traceparent} of the span active on this thread. Liberty's {@code mpTelemetry-2.1}
 * feature gives applications the OpenTelemetry API; without it (or with its SDK disabled) there is
 * never an active span, and no trace context is recorded.
 */
public final class CurrentTrace {

  /** The header, property and attribute name of the W3C trace context. */
  public static final String TRACE_PARENT = "traceparent";

  private static final boolean API = apiVisible();

  private CurrentTrace() {}

  /** The current span's traceparent, or null when no valid span is active. */
  public static String traceParent() {
    return API ? OpenTelemetryApi.traceParent() : null;
  }

  private static boolean apiVisible() {
    try {
      Class.forName("io.opentelemetry.context.Context", false, CurrentTrace.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Loaded only when the API is visible. */
  private static final class OpenTelemetryApi {
    static String traceParent() {
      Map<String, String> carrier = new HashMap<>(2);
      W3CTraceContextPropagator.getInstance().inject(Context.current(), carrier, Map::put);
      return carrier.get(TRACE_PARENT);
    }
  }
}
