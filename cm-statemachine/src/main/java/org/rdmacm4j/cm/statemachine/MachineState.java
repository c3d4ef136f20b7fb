package org.rdmacm4j.cm.statemachine;

import org.rdmacm4j.cm.statemachine.machine.ActiveState;
import org.rdmacm4j.cm.statemachine.machine.ListenerState;
import org.rdmacm4j.cm.statemachine.machine.PassiveState;
import org.rdmacm4j.cm.statemachine.machine.UdState;

/** The state of one id: a phase (what the tables and diagrams show) plus the data the phase needs. */
public sealed interface MachineState<P extends Enum<P> & Phase>
        permits ActiveState, PassiveState, ListenerState, UdState {
    P phase();
}
