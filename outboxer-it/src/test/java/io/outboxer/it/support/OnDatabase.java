package io.outboxer.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * A test class that runs in one database's suite only ({@code postgresql} or {@code sqlite}), the
 * other suite skipping it with the reason: in place of exclude lists in the build. Judged where the
 * suite's JVM names its database ({@code outboxer.it.database}); inside the test server, which
 * names none, the class runs, the suite having decided already.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(OnDatabase.Condition.class)
public @interface OnDatabase {

  /** The database whose suite runs the class. */
  String value();

  /** Why it runs there only. */
  String because();

  /** Enables the class in its database's suite, and wherever no suite is named. */
  final class Condition implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      Optional<OnDatabase> only =
          context
              .getTestClass()
              .flatMap(c -> AnnotationSupport.findAnnotation(c, OnDatabase.class));
      String suite = System.getProperty("outboxer.it.database");
      if (only.isEmpty() || suite == null || suite.equals(only.get().value())) {
        return ConditionEvaluationResult.enabled("runs on " + (suite == null ? "any" : suite));
      }
      return ConditionEvaluationResult.disabled(
          "on " + only.get().value() + " only: " + only.get().because());
    }
  }
}
