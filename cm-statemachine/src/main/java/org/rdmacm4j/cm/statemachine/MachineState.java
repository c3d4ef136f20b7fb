package org.rdmacm4j.cm.statemachine;

/** The state of one id: a phase (what the tables and diagrams show) plus the data the phase needs. */
public interface MachineState<P extends Enum<P> & Phase> {
    P phase();
}
