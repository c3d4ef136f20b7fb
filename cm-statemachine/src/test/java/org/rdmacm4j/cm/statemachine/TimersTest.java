package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * Timers keeps only the armed kinds' generations (a bit set and a compact array): any sequence of
 * arm, cancel, fired and cancelAll must answer and emit what one generation per kind would.
 */
class TimersTest {

    /** One operation on one kind; {@code op} 0 arm, 1 cancel, 2 fired, 3 cancelAll (kind ignored). */
    record Op(int op, TimerKind kind) { }

    @Provide
    Arbitrary<Op> ops() {
        return Arbitraries.integers().between(0, 3).flatMap(op -> Arbitraries.of(TimerKind.class)
                .map(kind -> new Op(op, kind)));
    }

    @Property(tries = 500)
    void anySequenceMatchesOneGenerationPerKind(@ForAll @Size(max = 40) List<@net.jqwik.api.From("ops") Op> ops) {
        Timers t = Timers.none();
        Map<TimerKind, Long> model = new EnumMap<>(TimerKind.class);
        long next = 1;
        for (Op o : ops) {
            ActionList out = new ActionList();
            List<Action> expected = new ArrayList<>();
            switch (o.op()) {
                case 0 -> {
                    t = t.arm(o.kind(), 7, out);
                    Long old = model.put(o.kind(), next);
                    if (old != null) {
                        expected.add(new Action.CancelTimer(o.kind(), old));
                    }
                    expected.add(new Action.ArmTimer(o.kind(), next, 7));
                    next++;
                }
                case 1 -> {
                    t = t.cancel(o.kind(), out);
                    Long old = model.remove(o.kind());
                    if (old != null) {
                        expected.add(new Action.CancelTimer(o.kind(), old));
                    }
                }
                case 2 -> {
                    t = t.fired(o.kind());
                    model.remove(o.kind());
                }
                case 3 -> {
                    t = t.cancelAll(out);
                    model.forEach((kind, g) -> expected.add(new Action.CancelTimer(kind, g)));
                    model.clear();
                }
                default -> throw new AssertionError(o);
            }
            assertThat(out).isEqualTo(expected);
            assertThat(t.armed()).isEqualTo(model);
            assertThat(t.nextGeneration()).isEqualTo(next);
            for (TimerKind k : TimerKind.values()) {
                long g = model.getOrDefault(k, 0L);
                assertThat(t.isArmed(k)).isEqualTo(g != 0);
                assertThat(t.generation(k)).isEqualTo(g);
                assertThat(t.isCurrent(new Input.TimerExpired(k, g == 0 ? 1 : g))).isEqualTo(g != 0);
            }
            assertThat(t).isEqualTo(new Timers(model, next)).hasSameHashCodeAs(new Timers(model, next));
        }
    }

    @Test
    void aChangeThatChangesNothingKeepsTheValue() {
        ActionList out = new ActionList();
        Timers t = Timers.none().arm(TimerKind.DRAIN_DEADLINE, 1, out);
        assertThat(t.cancel(TimerKind.QUIESCE_DEADLINE, out)).isSameAs(t);
        assertThat(t.fired(TimerKind.QUIESCE_DEADLINE)).isSameAs(t);
        Timers none = t.cancelAll(out);
        assertThat(none.cancelAll(out)).isSameAs(none);
        assertThat(out).hasSize(2);
    }

    @Test
    void theCommonValuesAreSharedAndEqualToMadeOnes() {
        ActionList out = new ActionList();
        Timers armed = Timers.none().arm(TimerKind.CONNECT_DEADLINE, 5, out);
        assertThat(Timers.none().arm(TimerKind.CONNECT_DEADLINE, 9, new ActionList())).isSameAs(armed);
        assertThat(armed).isEqualTo(new Timers(Map.of(TimerKind.CONNECT_DEADLINE, 1L), 2));
        Timers idle = armed.cancel(TimerKind.CONNECT_DEADLINE, out);
        assertThat(armed.fired(TimerKind.CONNECT_DEADLINE)).isSameAs(idle);
        assertThat(idle).isEqualTo(new Timers(Map.of(), 2));
        Timers rearmed = idle.arm(TimerKind.DRAIN_DEADLINE, 1, out).arm(TimerKind.DRAIN_DEADLINE, 2, out);
        assertThat(rearmed).isEqualTo(new Timers(Map.of(TimerKind.DRAIN_DEADLINE, 3L), 4));
        assertThat(out).containsExactly(new Action.ArmTimer(TimerKind.CONNECT_DEADLINE, 1, 5),
                new Action.CancelTimer(TimerKind.CONNECT_DEADLINE, 1), new Action.ArmTimer(TimerKind.DRAIN_DEADLINE, 2, 1),
                new Action.CancelTimer(TimerKind.DRAIN_DEADLINE, 2), new Action.ArmTimer(TimerKind.DRAIN_DEADLINE, 3, 2));
    }

    @Test
    void pastTheSharedGenerationsValuesAreMadeAndStillEqual() {
        Timers t = Timers.none();
        ActionList out = new ActionList();
        for (int i = 0; i < 40; i++) {
            t = t.arm(TimerKind.RETRY_BACKOFF, 1, out);
        }
        assertThat(t).isEqualTo(new Timers(Map.of(TimerKind.RETRY_BACKOFF, 40L), 41));
        assertThat(t.cancelAll(out)).isEqualTo(new Timers(Map.of(), 41));
        assertThat(t.cancelAll(out).nextGeneration()).isEqualTo(41);
        ActionList last = new ActionList();
        t.cancel(TimerKind.RETRY_BACKOFF, last);
        assertThat(last).containsExactly(new Action.CancelTimer(TimerKind.RETRY_BACKOFF, 40));
    }

    @Test
    void cancelActionsOfSmallGenerationsAreSharedValues() {
        ActionList first = new ActionList();
        ActionList second = new ActionList();
        Timers armed = Timers.none().arm(TimerKind.QUIESCE_DEADLINE, 1, new ActionList());
        armed.cancel(TimerKind.QUIESCE_DEADLINE, first);
        armed.cancelAll(second);
        assertThat(first).containsExactly(new Action.CancelTimer(TimerKind.QUIESCE_DEADLINE, 1));
        assertThat(second.get(0)).isSameAs(first.get(0));
    }

    @Test
    void generationsAreAtLeastOne() {
        assertThatThrownBy(() -> new Timers(Map.of(TimerKind.DRAIN_DEADLINE, 0L), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
