package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.ListenerPolicy;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.cm.statemachine.Transport;

/**
 * Random input sequences against every machine, under varied policies. Each step is checked by
 * {@link CoreModel}: every CM/async event acked exactly once (first), every future completed
 * exactly once, nothing destroyed while it has unacked events or before what it depends on,
 * fallible calls last, no action after the terminal phase. A second property closes (or aborts)
 * after a random prefix and lets only timers and noise happen: the terminal phase must follow
 * within a bounded number of inputs, owing nothing.
 */
class MachinePropertiesTest {
    /** Inputs after Close/Abort within which the terminal phase must be reached. */
    static final int CLOSE_BOUND = 24;

    @Provide
    Arbitrary<String> machines() {
        return Arbitraries.of("active", "passive", "listener", "ud-client", "ud-server", "ud-multicast");
    }

    @Property(tries = 1000)
    void randomSequencesKeepEveryInvariant(@ForAll("machines") String machine,
                                          @ForAll @IntRange(max = 63) int policyBits,
                                          @ForAll boolean happyPathBias,
                                          @ForAll @Size(min = 10, max = 150) List<@IntRange(min = 0, max = 1 << 20) Integer> choices) {
        Driver<?, ?> driver = driver(machine, policyBits);
        InputMenu menu = new InputMenu(driver.machine.name());
        for (int choice : choices) {
            driver.feed(menu.next(driver, choice, happyPathBias));
        }
    }

    @Property(tries = 1000)
    void closeAndAbortReachTheTerminalPhaseWithinABound(@ForAll("machines") String machine,
                                                       @ForAll @IntRange(max = 63) int policyBits,
                                                       @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 1 << 20) Integer> prefix,
                                                       @ForAll boolean abort,
                                                       @ForAll @Size(max = CLOSE_BOUND) List<@IntRange(min = 0, max = 1 << 20) Integer> noise) {
        Driver<?, ?> driver = driver(machine, policyBits);
        InputMenu menu = new InputMenu(driver.machine.name());
        for (int choice : prefix) {
            driver.feed(menu.next(driver, choice, true));
        }
        driver.feed(menu.close(abort));
        int inputs = 0;
        int noiseIndex = 0;
        while (!driver.terminal()) {
            assertThat(inputs).as("%s still in %s after %s inputs since close", machine, driver.phase(), inputs)
                    .isLessThan(CLOSE_BOUND);
            // Alternate: one arbitrary input (may be anything, even a new Close), then the next timer fires.
            if (inputs % 2 == 0 && noiseIndex < noise.size()) {
                driver.feed(menu.next(driver, noise.get(noiseIndex++)));
            } else {
                Input.TimerExpired t = InputMenu.earliestTimer(driver.timers());
                assertThat(t).as("%s closing in %s with no timer armed: it could wait forever", machine,
                        driver.phase()).isNotNull();
                driver.feed(t);
            }
            inputs++;
        }
        // Still well-behaved after the end.
        for (int i = 0; i < 5 && noiseIndex < noise.size(); i++) {
            driver.feed(menu.next(driver, noise.get(noiseIndex++)));
        }
        assertThat(driver.terminal()).isTrue();
    }

    static Driver<?, ?> driver(String machine, int bits) {
        Transport transport = Transport.values()[bits % 3];
        RetryPolicy retry = (bits & 4) != 0 ? RetryPolicy.never()
                : new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(4), 2, true, true, true, true);
        ConnectionPolicy policy = new ConnectionPolicy(transport, Deadlines.defaults(), retry, CmTuning.defaults(),
                (bits & 8) != 0, (bits & 16) != 0, false, (bits & 32) != 0 ? 0 : 2);
        return switch (machine) {
            case "active" -> Driver.active(new ActiveConnectionMachine(policy));
            case "passive" -> Driver.passive(new PassiveConnectionMachine(policy));
            case "listener" -> Driver.listener(new ListenerMachine((bits & 4) != 0 ? ListenerPolicy.defaults()
                    : new ListenerPolicy(retry, (bits & 8) != 0, (bits & 16) != 0, (bits & 32) != 0 ? 0 : 2)));
            case "ud-client" -> Driver.ud(new UdMachine(policy.withSidr(true)), false);
            case "ud-server" -> Driver.ud(new UdMachine(policy), true);
            case "ud-multicast" -> Driver.ud(new UdMachine(policy.withSidr(false)), false);
            default -> throw new IllegalArgumentException(machine);
        };
    }
}
