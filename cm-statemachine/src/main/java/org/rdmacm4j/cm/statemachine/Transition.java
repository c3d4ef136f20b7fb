package org.rdmacm4j.cm.statemachine;

import java.util.List;
import java.util.Objects;

/** The result of one step: the next state and the actions to run, in order. */
public record Transition<S>(S next, List<Action> actions) {
    public Transition {
        Objects.requireNonNull(next, "next");
        actions = List.copyOf(actions);
    }
}
