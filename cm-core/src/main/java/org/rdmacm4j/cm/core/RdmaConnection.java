package org.rdmacm4j.cm.core;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One RC connection: an rdma_cm_id with its own queue pair, completion queue and completion
 * channel. Obtained from a completed {@link RdmaCm#connect} or {@link ConnectionRequest#accept}
 * future. Every method may be called from any thread.
 */
public interface RdmaConnection {

    /** The local address of the connection. */
    InetSocketAddress localAddress();

    /** The peer's address. */
    InetSocketAddress peerAddress();

    /**
     * The private data the peer sent (its connect request on the passive side, its accept on the
     * active side): exactly the bytes it sent if the peer is rdmacm4j (or frames the same way), else
     * the whole transport-sized buffer as received. A copy.
     */
    byte[] peerPrivateData();

    /** The phase of the connection's state machine, e.g. "ESTABLISHED", "CLOSED". */
    String state();

    /** True once every native object of the connection has been freed. */
    boolean isClosed();

    /** The recent steps of the connection's state machine, oldest first (bounded). */
    List<HistoryEntry> history();

    /**
     * Graceful close: disconnect, wait (bounded) for the peer's answer, flush and free the QP, CQ,
     * channel and id. Completes when everything is freed; never fails, idempotent.
     */
    CompletableFuture<Void> close();

    /** Close without waiting for the peer. Completes when everything is freed; idempotent. */
    CompletableFuture<Void> abort();

    /** Completes when the connection is closed for any reason (local close, peer, error). */
    CompletableFuture<Void> closeFuture();
}
