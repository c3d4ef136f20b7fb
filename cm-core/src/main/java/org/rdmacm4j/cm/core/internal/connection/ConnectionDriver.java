package org.rdmacm4j.cm.core.internal.connection;

import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.loop.SerialExecutor;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.MachineState;

/**
 * An RC connection's id (active or passive): what its actions need beyond every id's (the QP and
 * message channel to create, the keepalive to start, its step barrier) and its public face.
 * Dispatcher thread only.
 */
public final class ConnectionDriver extends IdDriver {
    QpCapabilities qp = QpCapabilities.defaults();
    /** The message channel to create with the QP, or null for a raw connection. */
    MessagingOptions messaging;
    /** The keepalive to start once established, or null (off). */
    KeepaliveOptions keepalive;
    /** Active ids of a step barrier: its gate (null once this id left it) and the next step expected. */
    LockstepGate lockstep;
    int lockstepNext;
    /** When a party held at the first step stops waiting (no machine deadline runs before its Connect). */
    long lockstepDeadline;
    /** The public connection, once connect() or accept() made it. */
    ConnectionImpl connection;
    /** Passive ids: the offered request's expired() future, completed on RequestExpired; else null. */
    CompletableFuture<RequestExpiredException> requestExpired;

    ConnectionDriver(Kind kind, long serial, CmIdMachine<?, ?> machine, MachineState<?> initial, int historySize,
                     long nowNanos, SerialExecutor callbacks) {
        super(kind, serial, machine, initial, historySize, nowNanos, callbacks);
    }
}
