package org.rdmacm4j.cm.statemachine;

import java.util.List;
import java.util.Objects;

/**
 * The result of one step: the next state and the actions to run, in order.
 *
 * <p>{@code S} is bounded by {@link MachineState} although nothing here needs it: so the erased
 * {@link #next()} returns a {@code MachineState}, and a driver that holds any machine's state
 * (cm-core's IdDriver, once per step) reads it without a cast to that interface, which under C1
 * is a call to its slow subtype-check stub every time (docs/benchmarks.md, "s34-mon").
 */
public record Transition<S extends MachineState<?>>(S next, List<Action> actions) {
    /**
     * Keeps {@code actions} as a frozen {@link ActionList}: the machines' own list is frozen and kept
     * (no copy, and an exact-class check where List.copyOf cast to the List interface, a slow type
     * check under C1: see ActionList), any other list is copied once. The core then always iterates
     * the one list class.
     */
    public Transition {
        Objects.requireNonNull(next, "next");
        // The machines' own list (every step's) frozen here, without calling copyOf: that method
        // is too big for C1 to inline, so it was a call per step; the exact-class test of a final
        // class and freeze() are a few instructions.
        actions = actions instanceof ActionList l ? l.freeze() : ActionList.copyOf(actions);
    }

    /**
     * {@link #actions()} as the final class it always is: a driver that runs them calls {@code get}
     * and {@code size} on that class directly, not through the {@code List} interface (under C1 an
     * interface call with several receiver classes goes through an itable stub).
     */
    public ActionList actionList() {
        return (ActionList) actions;
    }
}
