package io.outboxer.demo;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The demo's REST resources, under the web module's context root {@code /demo}. */
@ApplicationPath("/")
public class DemoApplication extends Application {}
