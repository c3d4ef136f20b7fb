package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.MachineState;

/** State of a passive id. Start one with {@link PassiveConnectionMachine#open(org.rdmacm4j.cm.statemachine.Input.CmEvent, org.rdmacm4j.cm.statemachine.CmTuning)}. */
public record PassiveState(PassivePhase phase, ConnectionContext context) implements MachineState<PassivePhase> {
    public PassiveState {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(context, "context");
    }
}
