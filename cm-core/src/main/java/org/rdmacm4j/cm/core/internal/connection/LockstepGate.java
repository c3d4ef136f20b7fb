package org.rdmacm4j.cm.core.internal.connection;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.Input;

/**
 * The dispatcher's side of one {@link org.rdmacm4j.cm.core.StepBarrier}: which party reached which
 * step, and the input each waiting party is held at. A held input is one the machine has not seen
 * yet, so a waiting connection is, to its machine, a connection whose kernel is slow: cancel, close
 * and deadlines work as they always do. Dispatcher thread only.
 */
final class LockstepGate {
    /** The steps, in order; each is entered by one input of the active machine. */
    enum Step { RESOLVE_ADDR, RESOLVE_ROUTE, CONNECT }

    /** A party held at a step: its input, and (first step only) when it stops waiting. */
    record Held(IdDriver driver, Step step, Input input, long deadlineNanos) { }

    private final int parties;
    /** Parties at or past each step, those that left counted as past every step. */
    private final int[] reached = new int[Step.values().length];
    private final Map<IdDriver, Held> held = new LinkedHashMap<>();

    LockstepGate(int parties) {
        this.parties = parties;
    }

    /** The step {@code in} enters, or null if the input is not one the barrier holds. */
    static Step stepOf(Input in) {
        return switch (in) {
            case Input.Command.Connect c -> Step.RESOLVE_ADDR;
            case Input.CmEvent e when e.type() == CmEventType.ADDR_RESOLVED -> Step.RESOLVE_ROUTE;
            case Input.CmEvent e when e.type() == CmEventType.ROUTE_RESOLVED -> Step.CONNECT;
            default -> null;
        };
    }

    /** The input {@code d} is held at, or null. */
    Held heldOf(IdDriver d) {
        return held.get(d);
    }

    /**
     * {@code d} reached {@code step}; returns true if it may go on now (every party is there), false
     * if it is held. The caller advances its next expected step either way.
     */
    boolean arrive(IdDriver d, Step step, Input in, long deadlineNanos) {
        reached[step.ordinal()]++;
        if (open(step)) {
            return true;
        }
        held.put(d, new Held(d, step, in, deadlineNanos));
        return false;
    }

    /**
     * {@code d} leaves (it failed, was closed or cancelled, something else happened to it, or it never
     * started): it counts as past every step from {@code nextStep} (the first it had not reached).
     * Its own held input is removed, not returned: the caller feeds it, and forgets the gate.
     */
    void leave(IdDriver d, int nextStep) {
        held.remove(d);
        pastEveryStepFrom(nextStep);
    }

    /** A party that will never step (its connect was cancelled or failed before its machine started). */
    void absent() {
        pastEveryStepFrom(0);
    }

    private void pastEveryStepFrom(int step) {
        for (int s = step; s < reached.length; s++) {
            reached[s]++;
        }
    }

    /** The held parties whose step is now open (every party reached it), removed from the gate. */
    List<Held> released() {
        List<Held> out = new ArrayList<>();
        held.values().removeIf(h -> {
            if (open(h.step())) {
                out.add(h);
                return true;
            }
            return false;
        });
        return out;
    }

    /** Parties held at the first step past {@code nowNanos}: no machine deadline runs for them yet. */
    List<Held> overdue(long nowNanos) {
        return held.values().stream().filter(h -> h.step() == Step.RESOLVE_ADDR && nowNanos - h.deadlineNanos() >= 0)
                .toList();
    }

    private boolean open(Step step) {
        return reached[step.ordinal()] >= parties;
    }
}
