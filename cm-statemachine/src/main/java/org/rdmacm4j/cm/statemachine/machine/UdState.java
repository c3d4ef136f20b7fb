package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.MachineState;

/** State of a UD id. */
public record UdState(UdPhase phase, ConnectionContext context) implements MachineState<UdPhase> {
    public UdState {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(context, "context");
    }

    public static UdState initial() {
        return new UdState(UdPhase.IDLE, ConnectionContext.fresh());
    }
}
