package io.outboxer.internal.store;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a store method that the engine runs in a transaction of its own: a batch read, a
 * completion, a lease's renewal. Where the database has one writer, such transactions take turns
 * ({@link EngineTurns}), from before the transaction begins until after its connection went back to
 * the pool (ADR 0018).
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface EngineTransaction {}
