package org.rdmacm4j.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The suite's own rules, checked rather than trusted: every {@code *IT} class (and every
 * {@code *TwoHost} class of the two-host rig) carries
 * {@link SoftRoceTest} (so its leaks are counted and its tests time out), and nothing is
 * {@link Disabled} (a disabled RDMA test is one that cannot fail).
 */
@SoftRoceTest
class SuiteConventionsIT {

    @Test
    void everyIntegrationTestClassIsCheckedForLeaksAndNothingIsDisabled() throws Exception {
        List<Class<?>> classes = integrationTestClasses();
        assertThat(classes).as("IT classes found").hasSizeGreaterThanOrEqualTo(3).contains(SuiteConventionsIT.class);

        List<String> problems = new ArrayList<>();
        for (Class<?> c : classes) {
            if (!c.isAnnotationPresent(SoftRoceTest.class)) {
                problems.add(c.getName() + " lacks @SoftRoceTest");
            }
            if (c.isAnnotationPresent(Disabled.class)) {
                problems.add(c.getName() + " is disabled");
            }
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Disabled.class)) {
                    problems.add(c.getName() + "." + m.getName() + " is disabled");
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    private static List<Class<?>> integrationTestClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(SuiteConventionsIT.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.filter(f -> f.getFileName().toString().endsWith("IT.class")
                    || f.getFileName().toString().endsWith("TwoHost.class")).toList()) {
                String name = root.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                classes.add(Class.forName(name, false, SuiteConventionsIT.class.getClassLoader()));
            }
        }
        return classes;
    }
}
