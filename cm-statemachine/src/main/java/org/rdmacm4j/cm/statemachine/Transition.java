package org.rdmacm4j.cm.statemachine;

import java.util.List;
import java.util.Objects;

/** The result of one step: the next state and the actions to run, in order. */
public record Transition<S>(S next, List<Action> actions) {
    /** List.of(): one instance, whatever the element type. */
    private static final List<Action> NONE = List.of();

    public Transition {
        Objects.requireNonNull(next, "next");
        // List.copyOf keeps an immutable list as it is; a step with no action (List.of()) is kept
        // without that call, once per step of every id.
        actions = actions == NONE ? NONE : List.copyOf(actions);
    }
}
