package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Timers;

/**
 * State of a listener.
 *
 * @param hasId    a listening rdma_cm_id exists (false between a destroy and a successful re-listen)
 * @param attempts re-listen attempts of the current outage
 * @param pending  requests offered and not yet settled
 */
public record ListenerState(ListenerPhase phase, boolean hasId, int attempts, Timers timers, int pending)
        implements MachineState<ListenerPhase> {
    public ListenerState {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(timers, "timers");
    }

    ListenerState with(ListenerPhase newPhase, boolean newHasId, int newAttempts, Timers newTimers) {
        return new ListenerState(newPhase, newHasId, newAttempts, newTimers, pending);
    }

    ListenerState withPending(int newPending) {
        return new ListenerState(phase, hasId, attempts, timers, newPending);
    }

    public static ListenerState listening() {
        return new ListenerState(ListenerPhase.LISTENING, true, 0, Timers.none(), 0);
    }

}
