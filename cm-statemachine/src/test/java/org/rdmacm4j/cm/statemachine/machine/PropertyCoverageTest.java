package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Guards the property tests against passing vacuously: the same generator, driven by a seeded
 * Random, must visit every phase of every machine (ESTABLISHED, TIMEWAIT, RELEASING and CLOSED
 * included) and exercise injected call failures.
 */
class PropertyCoverageTest {
    @ParameterizedTest
    @ValueSource(strings = {"active", "passive", "listener", "ud-client", "ud-server"})
    void randomSequencesVisitEveryPhase(String machine) {
        Random random = new Random(42);
        Set<String> visited = new HashSet<>();
        Set<String> expected = new HashSet<>();
        int callFailures = 0;
        for (int run = 0; run < 150; run++) {
            Driver<?, ?> driver = MachinePropertiesTest.driver(machine, random.nextInt(64) & ~4 | 8);
            for (Enum<?> p : driver.phase().getDeclaringClass().getEnumConstants()) {
                expected.add(p.name());
            }
            InputMenu menu = new InputMenu(driver.machine.name());
            visited.add(driver.phase().name());
            for (int i = 0; i < 80; i++) {
                var input = menu.next(driver, random.nextInt(1 << 20));
                if (input instanceof org.rdmacm4j.cm.statemachine.Input.CallFailed) {
                    callFailures++;
                }
                driver.feed(input);
                visited.add(driver.phase().name());
            }
        }
        if (machine.startsWith("ud-server")) {
            expected.removeAll(Set.of("IDLE", "RESOLVING_ADDR", "RESOLVING_ROUTE", "SIDR_QUERY", "BACKOFF"));
        }
        if (machine.equals("ud-client")) {
            expected.remove("REQUEST_RECEIVED");
        }
        assertThat(visited).containsAll(expected);
        assertThat(callFailures).as("injected call failures").isGreaterThan(3);
    }
}
