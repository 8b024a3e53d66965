package io.outboxer.it.scenario;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The scenario endpoint that the property tests drive from outside the server. */
@ApplicationPath("/it")
public class ScenarioApplication extends Application {}
