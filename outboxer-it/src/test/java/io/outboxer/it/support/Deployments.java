package io.outboxer.it.support;

import io.outboxer.it.relay.RecordingRelayProvider;
import io.outboxer.it.relay.ScriptedRelay;
import io.outboxer.it.relay.ScriptedRelayProvider;
import io.outboxer.it.support.health.EngineReadiness;
import io.outboxer.spi.RelayProvider;
import java.io.File;
import org.jboss.arquillian.container.test.api.Testable;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The test deployment: the real outboxer EAR as built (engine, JPA unit, Hibernate in lib/), with
 * the demo web module swapped for a web module holding the tests, and the scripted relay added.
 */
public final class Deployments {

  private Deployments() {}

  public static EnterpriseArchive outboxerWith(Class<?>... testClasses) {
    return outboxerWith("outboxer.ear", testClasses);
  }

  /** The same, as an application of its own name: a second engine instance in the server. */
  public static EnterpriseArchive outboxerWith(String name, Class<?>... testClasses) {
    File libs = new File(System.getProperty("outboxer.it.libs"));
    EnterpriseArchive ear =
        ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(libs, "outboxer.ear"));
    // The demo's listener would compete with the tests for the demo queue.
    ear.delete("/outboxer-demo.war");
    WebArchive tests =
        ShrinkWrap.create(WebArchive.class, name.replace(".ear", "-tests.war"))
            .addClasses(testClasses)
            .addPackage(Deployments.class.getPackage())
            .addAsLibraries(
                new File(libs, "assertj-core.jar"),
                new File(libs, "awaitility.jar"),
                new File(libs, "hamcrest.jar"));
    // A second engine instance in one server would claim the admin API's context root again; the
    // readiness check that module declares comes with the tests' module instead.
    if (!name.equals("outboxer.ear")) {
      ear.delete("/outboxer-web.war");
      tests.addClass(EngineReadiness.class);
    }
    // The scripted relay goes where the engine's ServiceLoader looks: the EAR's lib/.
    JavaArchive relay =
        ShrinkWrap.create(JavaArchive.class, "scripted-relay.jar")
            .addPackage(ScriptedRelay.class.getPackage())
            .addAsServiceProvider(
                RelayProvider.class, ScriptedRelayProvider.class, RecordingRelayProvider.class);
    // The EAR has a web module of its own (the admin API): the tests' module is the one to enrich.
    ear.addAsModule(Testable.archiveToTest(tests)).addAsLibrary(relay);
    return ShrinkWrap.create(EnterpriseArchive.class, name).merge(ear);
  }
}
