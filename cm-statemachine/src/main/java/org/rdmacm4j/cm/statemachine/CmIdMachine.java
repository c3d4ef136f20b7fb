package org.rdmacm4j.cm.statemachine;

/**
 * A pure transition function for one kind of rdma_cm_id. Implementations are immutable, hold only
 * policy, and never throw for any (state, input) pair: unexpected inputs produce
 * {@link Action.LogUnexpected}.
 */
public interface CmIdMachine<P extends Enum<P> & Phase, S extends MachineState<P>> {
    /** Short name used in docs ("active", "passive", "listener", "ud"). */
    String name();

    Class<P> phaseType();

    /** The one transition choke point. */
    Transition<S> step(S state, Input input);
}
