package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No pattern {@code switch} on a connection's normal path. JDK 25 links each one on its first run by
 * generating and loading a class ({@code SwitchBootstraps.typeSwitch}, 30-50 ms a site in the guest,
 * not kept by the AOT cache), so those switches go over {@code Input.Variant}, {@code Action.Variant}
 * and {@code Notice.Variant} instead (docs/architecture.md, "Decisions that cut across layers"). This
 * reads the compiled classes of cm-statemachine and cm-core and counts the pattern-switch call sites
 * per class; the ones below are on paths that run only after something failed, in a mode a connection
 * has to ask for, or in the documentation generators. A new site anywhere else fails here: switch over
 * the variant, or, if its path is one of those, add it with why.
 */
class PatternSwitchSitesTest {
    private static final List<Path> CLASSES = List.of(Path.of("target", "classes"),
            Path.of("..", "cm-statemachine", "target", "classes"));

    /** Class (binary name) -> pattern-switch call sites it may have, and why that path may have them. */
    private static final Map<String, Allowed> ALLOWED = Map.ofEntries(
            allowed("org.rdmacm4j.cm.statemachine.machine.ActiveConnectionMachine", 2,
                    "the failed native call (callFailed) and the commands of the retry path after a rejection"),
            allowed("org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine", 1, "the failed native call"),
            allowed("org.rdmacm4j.cm.statemachine.machine.ListenerMachine", 1, "the failed native call"),
            allowed("org.rdmacm4j.cm.statemachine.machine.UdMachine", 2, "the failed native call, in two phases"),
            allowed("org.rdmacm4j.cm.statemachine.RetryPolicy", 1, "a rejection's reason"),
            allowed("org.rdmacm4j.cm.statemachine.Inputs", 1, "labels of unexpected inputs, for the log"),
            allowed("org.rdmacm4j.cm.statemachine.doc.Render", 3, "the documentation generator"),
            allowed("org.rdmacm4j.cm.statemachine.doc.Catalog", 2, "the documentation generator"),
            allowed("org.rdmacm4j.cm.core.internal.id.Failures", 2, "a failure mapped to its exception"),
            allowed("org.rdmacm4j.cm.core.internal.id.Describe", 1, "a history being reported"),
            allowed("org.rdmacm4j.cm.core.internal.connection.LockstepGate", 1,
                    "lockstep connections only (cmtime's --lockstep), which the application asks for"));

    private record Allowed(int sites, String why) { }

    private static Map.Entry<String, Allowed> allowed(String className, int sites, String why) {
        return Map.entry(className, new Allowed(sites, why));
    }

    @Test
    void patternSwitchesOnlyWhereTheirPathIsNotAConnectionsNormalOne() throws IOException {
        Map<String, Integer> found = new TreeMap<>();
        int classes = 0;
        for (Path root : CLASSES) {
            assertThat(root).as("compiled classes (the reactor builds cm-statemachine first)").isDirectory();
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                    classes++;
                    ClassModel model = ClassFile.of().parse(Files.readAllBytes(f));
                    int sites = patternSwitchSites(model);
                    if (sites > 0) {
                        found.put(model.thisClass().asInternalName().replace('/', '.'), sites);
                    }
                }
            }
        }
        Map<String, Integer> expected = new TreeMap<>();
        ALLOWED.forEach((c, a) -> expected.put(c, a.sites()));
        assertThat(classes).as("class files read").isGreaterThan(100);
        assertThat(found).as("pattern-switch call sites per class (a switch on a connection's normal path "
                + "goes over x.variant(); see this test's Javadoc)").isEqualTo(expected);
    }

    private static int patternSwitchSites(ClassModel model) {
        int sites = 0;
        for (IndySites.Site site : IndySites.of(model)) {
            if (site.bootstrapOwner().equals("Ljava/lang/runtime/SwitchBootstraps;")) {
                sites++;
            }
        }
        return sites;
    }
}
