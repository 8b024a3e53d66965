package io.outboxer.internal;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The engine's packages as ADR 0007 draws them: arrows point down only. publish, worker and admin
 * use store and rules; relays use spi and rules; rules is pure policy; nothing uses worker.
 */
class ArchitectureTest {

  private static final JavaClasses ENGINE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.outboxer");

  @Test
  void rulesArePurePolicy() {
    classes()
        .that()
        .resideInAPackage("io.outboxer.internal.rules..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "io.outboxer.internal.rules..",
            "io.outboxer.spi..",
            "java..",
            "org.apache.commons.codec..")
        .because("rules hold the policy, testable without a database or a container")
        .check(ENGINE);
  }

  @Test
  void nothingOutsideTheWorkerUsesTheWorker() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.outboxer.internal.worker..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.outboxer.internal.worker..")
        .check(ENGINE);
  }

  @Test
  void relaysKnowNeitherTheStoreNorTheWorker() {
    noClasses()
        .that()
        .resideInAPackage("io.outboxer.internal.relay..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.outboxer.internal.store..",
            "io.outboxer.internal.worker..",
            "io.outboxer.internal.publish..",
            "io.outboxer.internal.admin..")
        .check(ENGINE);
  }

  @Test
  void theStoreKnowsNoCallerOfIt() {
    noClasses()
        .that()
        .resideInAPackage("io.outboxer.internal.store..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.outboxer.internal.config..",
            "io.outboxer.internal.relay..",
            "io.outboxer.internal.worker..",
            "io.outboxer.internal.publish..",
            "io.outboxer.internal.admin..",
            "io.outboxer.internal.health..")
        .check(ENGINE);
  }

  @Test
  void thePackagesFormNoCycle() {
    slices().matching("io.outboxer.(**)").should().beFreeOfCycles().check(ENGINE);
  }
}
