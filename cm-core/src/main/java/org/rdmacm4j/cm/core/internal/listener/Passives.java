package org.rdmacm4j.cm.core.internal.listener;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RequestExpiredException;
import org.rdmacm4j.cm.core.internal.id.IdDriver;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine;

/**
 * The connection side of a request: a request's passive id is an RC connection, which is not the
 * listener's to drive. The dispatcher wires this to the connections (the listener package does not
 * import them, so neither kind depends on the other).
 */
public interface Passives {
    /**
     * Makes the passive id of an offered request, on the machine the listener opened. Dispatcher
     * thread, inside the listener's step; the caller runs the opened actions.
     */
    IdDriver open(NativeId nid, PassiveConnectionMachine machine, MachineState<?> opened, IdDriver offeredBy,
                  KeepaliveOptions keepalive, CompletableFuture<RequestExpiredException> expired);

    /** The application accepts the request. Any thread. */
    CompletableFuture<RdmaConnection> accept(IdDriver passive, InetSocketAddress peer, InetSocketAddress local,
                                             ConnectionHandler handler, AcceptOptions options);
}
