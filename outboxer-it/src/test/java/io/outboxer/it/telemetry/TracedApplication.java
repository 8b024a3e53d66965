package io.outboxer.it.telemetry;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The JAX-RS application of the telemetry tests' web module. */
@ApplicationPath("it")
public class TracedApplication extends Application {}
