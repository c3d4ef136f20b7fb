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
    /** List.of(): one instance, whatever the element type. */
    private static final List<Action> NONE = List.of();

    public Transition {
        Objects.requireNonNull(next, "next");
        // List.copyOf keeps an immutable list as it is; a step with no action (List.of()) is kept
        // without that call, once per step of every id.
        actions = actions == NONE ? NONE : List.copyOf(actions);
    }
}
