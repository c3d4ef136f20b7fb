package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.machine.ListenerPhase;
import org.rdmacm4j.cm.statemachine.machine.ListenerState;

/** ActionList behaves as the List.of list a Transition kept before, beyond its fields and after an insert. */
class ActionListTest {

    private static List<Action> actions(int n) {
        List<Action> a = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            a.add(new Action.CompleteFuture(i + 1, new Outcome.Done()));
        }
        return a;
    }

    @Test
    void holdsAnyNumberInOrderAndEqualsTheSameListOf() {
        for (int n = 0; n <= 20; n++) {
            List<Action> expected = actions(n);
            ActionList l = new ActionList();
            expected.forEach(l::add);
            assertThat(l).hasSize(n).containsExactlyElementsOf(expected);
            assertThat(l).isEqualTo(List.copyOf(expected));
            assertThat(List.copyOf(expected)).isEqualTo(l);
            assertThat(l.hashCode()).isEqualTo(List.copyOf(expected).hashCode());
            assertThat(l.toString()).isEqualTo(List.copyOf(expected).toString());
        }
    }

    @Test
    void insertsAtAnyIndex() {
        for (int n = 0; n <= 9; n++) {
            for (int at = 0; at <= n; at++) {
                List<Action> expected = actions(n);
                ActionList l = new ActionList();
                expected.forEach(l::add);
                Action settle = new Action.SettleRequest();
                expected.add(at, settle);
                l.add(at, settle);
                assertThat(l).as("n=%d at=%d", n, at).containsExactlyElementsOf(expected);
            }
        }
    }

    /** Frozen (a bit of the size field), a list of any length keeps its size and elements, and refuses more. */
    @Test
    void freezingKeepsSizeAndElements() {
        for (int n = 0; n <= 20; n++) {
            List<Action> expected = actions(n);
            ActionList l = new ActionList();
            expected.forEach(l::add);
            assertThat(l.frozen()).isFalse();
            assertThat(l.freeze()).isSameAs(l);
            assertThat(l.freeze().frozen()).isTrue();
            assertThat(l).hasSize(n).containsExactlyElementsOf(expected);
            int size = n;
            assertThatThrownBy(() -> l.get(size)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> l.add(new Action.DestroyId())).isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> l.add(size, new Action.DestroyId())).isInstanceOf(UnsupportedOperationException.class);
            assertThat(l).hasSize(n);
        }
    }

    /** Any machine state will do as a transition's next state here. */
    private static final ListenerState NEXT = new ListenerState(ListenerPhase.LISTENING, true, 0, Timers.none(), 0);

    @Test
    void aTransitionFreezesTheListItKeeps() {
        ActionList l = new ActionList();
        l.add(new Action.DestroyId());
        Transition<ListenerState> t = new Transition<>(NEXT, l);
        assertThat(t.actions()).isSameAs(l);
        assertThat(l.frozen()).isTrue();
        assertThatThrownBy(() -> l.add(new Action.DestroyQp())).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> l.add(0, new Action.DestroyQp())).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> l.remove(0)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> l.set(0, new Action.DestroyQp())).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(l::clear).isInstanceOf(UnsupportedOperationException.class);
        assertThat(l).containsExactly(new Action.DestroyId());
    }

    @Test
    void anyOtherListIsCopiedFrozenAndNullsAreRejected() {
        List<Action> source = new ArrayList<>(actions(8));
        Transition<ListenerState> t = new Transition<>(NEXT, source);
        source.clear();
        assertThat(t.actions()).isInstanceOf(ActionList.class).hasSize(8);
        assertThat(new Transition<>(NEXT, List.of()).actions()).isSameAs(ActionList.none());
        List<Action> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> new Transition<>(NEXT, withNull)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new ActionList().add(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> t.actions().contains(null)).isInstanceOf(NullPointerException.class);
    }
}
