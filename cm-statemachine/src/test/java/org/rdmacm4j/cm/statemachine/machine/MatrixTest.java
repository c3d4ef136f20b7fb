package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Phase;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.doc.Catalog;
import org.rdmacm4j.cm.statemachine.doc.Exemplar;
import org.rdmacm4j.cm.statemachine.doc.Render;

/**
 * Every (phase, input kind) pair of every machine, from the catalogued representative state,
 * against the hand-written outcome table in src/test/resources/matrix/&lt;machine&gt;.spec: next
 * phase, key actions in order, and whether the input is logged as unexpected. Also, for every pair:
 * no exception, and an event input is acked exactly once, first.
 */
class MatrixTest {
    private static final Set<String> SHARED_PHASES = Set.of("DISCONNECTING", "TIMEWAIT", "ESTABLISHED");

    static Stream<Arguments> pairs() {
        List<Arguments> all = new ArrayList<>();
        for (Catalog.Entry<?, ?> entry : Catalog.all()) {
            addPairs(entry, all);
        }
        return all.stream();
    }

    private static <P extends Enum<P> & Phase, S extends MachineState<P>> void addPairs(Catalog.Entry<P, S> entry,
                                                                                     List<Arguments> out) {
        MatrixSpec spec = MatrixSpec.load(entry.machine().name() + ".spec");
        Set<String> known = new HashSet<>();
        for (P p : entry.machine().phaseType().getEnumConstants()) {
            known.add(p.name());
        }
        spec.checkPhases(known, SHARED_PHASES);
        for (Map.Entry<P, S> rep : entry.representatives().entrySet()) {
            for (Exemplar ex : entry.exemplars()) {
                out.add(Arguments.of(entry.machine().name(), rep.getKey().name(), ex.label(),
                        new Case<>(entry, rep.getValue(), ex, spec)));
            }
        }
    }

    record Case<P extends Enum<P> & Phase, S extends MachineState<P>>(Catalog.Entry<P, S> entry, S state,
                                                                      Exemplar exemplar, MatrixSpec spec) {
        Transition<S> run() {
            return entry.machine().step(state, exemplar.inputFor(state));
        }

        @Override
        public String toString() {
            return "";
        }
    }

    @ParameterizedTest(name = "{0} {1} x {2}")
    @MethodSource("pairs")
    void outcomeMatchesTheTable(String machine, String phase, String input, Case<?, ?> c) {
        assertThatCode(c::run).doesNotThrowAnyException();
        Transition<?> t = c.run();
        MatrixSpec.Expectation e = c.spec().expect(phase, input);
        String where = machine + " " + phase + " x " + input + " (rule " + e.file() + ":" + e.line() + "), actual "
                + Render.actions(t.actions());
        String next = ((MachineState<?>) t.next()).phase().name();
        assertThat(next).as(where).isEqualTo(e.next().equals("=") ? phase : e.next());
        List<String> key = t.actions().stream()
                .filter(a -> !(a instanceof Action.AckCmEvent || a instanceof Action.AckAsyncEvent
                        || a instanceof Action.LogUnexpected || a instanceof Action.CancelTimer))
                .map(Render::action).toList();
        assertThat(key).as(where).containsExactlyElementsOf(e.actions());
        assertThat(t.actions().stream().anyMatch(a -> a instanceof Action.LogUnexpected)).as(where + " logged")
                .isEqualTo(e.log());

        Input in = c.exemplar().inputFor(c.state());
        long acks = t.actions().stream().filter(a -> a instanceof Action.AckCmEvent || a instanceof Action.AckAsyncEvent)
                .count();
        boolean event = in instanceof Input.CmEvent || in instanceof Input.AsyncEvent;
        assertThat(acks).as(where + " acks").isEqualTo(event ? 1 : 0);
        if (event) {
            assertThat(t.actions().getFirst()).as(where + " ack first")
                    .isInstanceOfAny(Action.AckCmEvent.class, Action.AckAsyncEvent.class);
        }
    }
}
