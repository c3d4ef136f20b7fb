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

    /**
     * Completes when the connection is closed for any reason (local close, peer, error). Each call
     * returns a new future: completing or cancelling it does not touch the connection or another
     * caller's future.
     */
    CompletableFuture<Void> closeFuture();

    /**
     * The largest message {@link #send} accepts: the peer's receive buffer size. 0 if the
     * connection has no message channel (a raw connection, or a peer that did not offer one).
     */
    int maxMessageSize();

    /**
     * Sends one message (a copy is taken before this returns). Completes when the send completion
     * arrives, i.e. the peer's adapter has the message. Waits for credits (queued, bounded by
     * {@link MessagingOptions#maxQueuedSends()}) and never makes the peer RNR.
     *
     * @throws IllegalArgumentException if larger than {@link #maxMessageSize()}
     * @throws IllegalStateException    if the connection has no message channel
     */
    CompletableFuture<Void> send(java.lang.foreign.MemorySegment message);

    /** {@link #send(java.lang.foreign.MemorySegment)} of {@code message}'s bytes. */
    CompletableFuture<Void> send(byte[] message);

    /** {@link #send(java.lang.foreign.MemorySegment)} of the remaining bytes of {@code message} (not consumed). */
    CompletableFuture<Void> send(java.nio.ByteBuffer message);

    /**
     * Sends without a future and without allocating: true if the message was posted or queued,
     * false if the send queue is full. A failure is reported to {@link ConnectionHandler#onError}.
     */
    boolean offer(java.lang.foreign.MemorySegment message);

    /**
     * Registers {@code segment} (native memory, kept alive by the caller) with this connection's
     * device for local and remote read, write and atomics. Closed at the latest with the connection.
     */
    RegisteredRegion register(java.lang.foreign.MemorySegment segment);

    /**
     * RDMA WRITE of {@code length} bytes from {@code local} at {@code localOffset} to {@code remote}
     * at {@code remoteOffset}; completes when the write completion arrives. Bounds are checked
     * before anything is posted (IllegalArgumentException).
     */
    CompletableFuture<Void> write(RegisteredRegion local, long localOffset, RemoteRegion remote, long remoteOffset,
                                  int length);

    /** RDMA READ of {@code length} bytes from {@code remote} into {@code local}. Bounds checked first. */
    CompletableFuture<Void> read(RegisteredRegion local, long localOffset, RemoteRegion remote, long remoteOffset,
                                 int length);

    /** Atomic compare-and-swap of the 8-byte word at {@code remote + offset} (8-byte aligned); the old value. */
    CompletableFuture<Long> compareAndSwap(RemoteRegion remote, long offset, long expected, long newValue);

    /**
     * The verbs objects under this connection, for an application that brings its own data path
     * (see {@link RawQueuePair} for the rules).
     *
     * <p>The connection's completion queue is polled from the first call on (a raw connection's CQ
     * is registered with its poller only then, so one that never posts costs the poller nothing):
     * call it before posting.
     *
     * @throws IllegalStateException before the QP exists or after the connection closed, and for
     *     a first call once a close has begun (the CQ is no longer polled)
     */
    RawQueuePair raw();

    /** Atomic fetch-and-add on the 8-byte word at {@code remote + offset} (8-byte aligned); the old value. */
    CompletableFuture<Long> fetchAndAdd(RemoteRegion remote, long offset, long add);
}
