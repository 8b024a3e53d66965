package io.outboxer.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The admin API, under {@code /outboxer/admin}. */
@ApplicationPath("admin")
public class AdminApplication extends Application {}
