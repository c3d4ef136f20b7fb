package org.rdmacm4j.cm.core;

import org.rdmacm4j.cm.statemachine.AsyncEventType;

/**
 * What an application hears about one connection. Every method has an empty default, so a handler
 * overrides only what it needs.
 *
 * <p>Threads: callbacks run on the {@link RdmaCm}'s callback executor, never on the CM dispatcher
 * or a completion poller. Callbacks of one connection never run concurrently and arrive in the
 * order the events happened; callbacks of different connections may run in parallel. A callback
 * that throws is logged and otherwise ignored: it cannot stop the dispatcher or other connections.
 * Blocking in a callback delays only this connection's later callbacks.
 */
public interface ConnectionHandler {

    /** The connection is up. The connect or accept future has been completed just before (same ordered executor). */
    default void onEstablished(RdmaConnection connection) { }

    /**
     * The peer disconnected first (its DREQ, or a DREQ timeout); teardown follows. A local
     * {@link RdmaConnection#close()} ends in {@link #onClosed} without this callback.
     */
    default void onDisconnected(RdmaConnection connection) { }

    /** The connection failed while live (peer unreachable, QP error, device removed, ...); teardown follows. */
    default void onError(RdmaConnection connection, RdmaCmException error) { }

    /** The local address changed (ADDR_CHANGE); by default the connection is then closed. */
    default void onAddressChanged(RdmaConnection connection) { }

    /** An informational async event of the QP or its port (PATH_MIG, PORT_ERR, SRQ_LIMIT_REACHED, ...). */
    default void onAsyncEvent(RdmaConnection connection, AsyncEventType event) { }

    /**
     * A message from the peer. Runs on the connection's completion poller thread, not the
     * callback executor: return quickly and never block (hand work off instead). {@code message}
     * is a view of a receive buffer, valid only during the call; copy what you keep. The buffer is
     * re-posted (and its credit returned to the peer) when this returns, so a slow handler slows
     * the sender instead of overrunning it. Messages arrive in the order they were sent.
     */
    default void onMessage(RdmaConnection connection, java.lang.foreign.MemorySegment message) { }

    /**
     * Raw connections ({@link ConnectOptions.Builder#raw()}): a completion of a work request the
     * application posted through {@link RdmaConnection#raw()}. Runs on the completion poller
     * thread; {@code completions} is the poller's batch, valid during the call only.
     */
    default void onCompletion(RdmaConnection connection, org.rdmacm4j.verbs.ibv.WorkCompletions completions,
                              int index) { }

    /** Every native object of the connection has been freed; the last callback of a connection. */
    default void onClosed(RdmaConnection connection) { }

    /** A handler that ignores everything. */
    static ConnectionHandler none() {
        return new ConnectionHandler() { };
    }
}
