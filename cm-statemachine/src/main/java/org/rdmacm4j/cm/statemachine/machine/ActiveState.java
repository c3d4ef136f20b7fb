package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.MachineState;

/** State of an active id. */
public record ActiveState(ActivePhase phase, ConnectionContext context) implements MachineState<ActivePhase> {
    public ActiveState {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(context, "context");
    }

    /** A freshly created id (rdma_create_id succeeded), before Connect. */
    public static ActiveState initial() {
        return new ActiveState(ActivePhase.IDLE, ConnectionContext.fresh());
    }
}
