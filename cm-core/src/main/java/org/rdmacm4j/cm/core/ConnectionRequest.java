package org.rdmacm4j.cm.core;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A connection request received by an {@link RdmaListener}, to be accepted or rejected once. A
 * request not decided before the listener's decision timeout is rejected automatically and
 * {@link #expired()} completes; so does it if the peer gives up first. Any thread.
 */
public interface ConnectionRequest {

    InetSocketAddress peerAddress();

    InetSocketAddress localAddress();

    /** The peer's private data: exactly the bytes it sent if it frames them as rdmacm4j does (a copy). */
    byte[] privateData();

    /** True if the peer framed its private data as rdmacm4j does (so {@link #privateData()} is exact). */
    boolean privateDataFramed();

    /** Accepts with default options; the future completes once the connection is established. */
    default CompletableFuture<RdmaConnection> accept(ConnectionHandler handler) {
        return accept(handler, AcceptOptions.defaults());
    }

    CompletableFuture<RdmaConnection> accept(ConnectionHandler handler, AcceptOptions options);

    /** Rejects with these bytes for the peer (at most 146). Completes once the reject is sent. */
    CompletableFuture<Void> reject(byte[] privateData);

    /** Rejects with no private data. */
    default CompletableFuture<Void> reject() {
        return reject(new byte[0]);
    }

    /**
     * Completes (with the reason) if the request can no longer be answered: the peer gave up, the
     * decision deadline passed, or the device went away. Never completes for a decided request.
     */
    CompletableFuture<RequestExpiredException> expired();
}
