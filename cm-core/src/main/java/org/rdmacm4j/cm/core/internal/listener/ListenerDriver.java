package org.rdmacm4j.cm.core.internal.listener;

import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;
import org.rdmacm4j.cm.statemachine.machine.ListenerMachine;
import org.rdmacm4j.cm.statemachine.machine.ListenerState;
import org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine;

/** A listening id: its public face and the machine its requests' passive ids run. Dispatcher thread only. */
final class ListenerDriver extends IdDriver {
    /** Its public face (set once, right after the driver is made). */
    ListenerImpl listener;
    /**
     * The machine of the last request's transport, reused for the next request on the same
     * transport (machines are pure: the policy is all they hold).
     */
    PassiveConnectionMachine passiveMachine;

    ListenerDriver(long serial, ListenerMachine machine, int historySize, long nowNanos, SerialExecutor callbacks) {
        super(Kind.LISTENER, serial, machine, ListenerState.listening(), historySize, nowNanos, callbacks);
    }
}
