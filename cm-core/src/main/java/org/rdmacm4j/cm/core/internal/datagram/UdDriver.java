package org.rdmacm4j.cm.core.internal.datagram;

import java.util.HashMap;
import java.util.Map;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.MachineState;

/**
 * A UD id (an endpoint's id or its SIDR listener, a SIDR query or answer): the endpoint it serves
 * and, for the endpoint's own id, its multicast memberships. Dispatcher thread only.
 */
final class UdDriver extends IdDriver {
    /** The endpoint this id serves. */
    final DatagramEndpointImpl endpoint;
    /** DATAGRAM: the options of joins in flight, by group. */
    final Map<String, JoinOptions> joining = new HashMap<>();
    /** DATAGRAM: live memberships, by group. */
    final Map<String, MembershipImpl> memberships = new HashMap<>();

    UdDriver(Kind kind, long serial, CmIdMachine<?, ?> machine, MachineState<?> initial, int historySize,
             long nowNanos, SerialExecutor callbacks, DatagramEndpointImpl endpoint) {
        super(kind, serial, machine, initial, historySize, nowNanos, callbacks);
        this.endpoint = endpoint;
    }
}
