package org.rdmacm4j.cm.core;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A UD (unreliable datagram) endpoint: one UD queue pair (RDMA_PS_UDP, Q_Key
 * {@code RDMA_UDP_QKEY} 0x01234567, as librdmacm sets it), a listening id on its port that answers
 * SIDR requests with that QP's number (so rdma-core's {@code udaddy} can find it), and the
 * multicast groups it joined. Obtained from {@link RdmaCm#openDatagram}. Every method may be called
 * from any thread.
 *
 * <p>Every datagram is a SEND_WITH_IMM whose immediate data is this endpoint's QP number, as
 * {@code udaddy} and {@code mckey} send theirs (udaddy's server replies to that QPN).
 */
public interface DatagramEndpoint {

    /** The address the endpoint listens on for SIDR requests (its port: the one asked, or the one picked). */
    InetSocketAddress localAddress();

    /** The number of the endpoint's UD queue pair. */
    int queuePairNumber();

    /** The Q_Key datagrams to this endpoint must carry (RDMA_UDP_QKEY). */
    int qkey();

    /** The largest datagram {@link #send} accepts: the port's active MTU (the 40-byte GRH is not part of it). */
    int maxDatagramSize();

    /**
     * Resolves a peer with SIDR, as {@code udaddy}'s client does: address and route resolution
     * from this endpoint's address, then a SIDR request to {@code remote}'s port; the reply names
     * the peer's QP and Q_Key, and the address vector becomes an address handle.
     *
     * @throws IllegalArgumentException for a null, unresolved or port-0 address
     */
    CompletableFuture<DatagramPeer> resolve(InetSocketAddress remote);

    /**
     * Joins a multicast group (rdma_join_multicast on the endpoint's id; its QP is attached to the
     * group). The membership is also a send target.
     *
     * @throws IllegalArgumentException if {@code group} is not an IPv4 multicast address
     */
    CompletableFuture<Membership> join(InetAddress group, JoinOptions options);

    /** {@link #join(InetAddress, JoinOptions)} with the defaults. */
    default CompletableFuture<Membership> join(InetAddress group) {
        return join(group, JoinOptions.defaults());
    }

    /**
     * Sends one datagram to a peer or a group (copied before this returns). Completes when the send
     * completion arrives; datagrams may be lost (UD), and no one acknowledges them. While all
     * {@link DatagramOptions#sendBuffers()} are in flight, a copy waits in a queue (in order) bounded by
     * {@link DatagramOptions#maxQueuedSends()}; beyond it the future fails at once with
     * {@link DataPathException} ("send queue full"), as {@link RdmaConnection#send} does.
     *
     * @throws IllegalArgumentException if larger than {@link #maxDatagramSize()}, or the target is
     *                                  closed or belongs to another endpoint
     */
    CompletableFuture<Void> send(DatagramTarget to, MemorySegment datagram);

    /**
     * {@link #send(DatagramTarget, MemorySegment)} without a future: true if the datagram was posted
     * or queued, false if the queue is full or the endpoint is closing (as {@link RdmaConnection#offer}).
     * A send that fails later is logged, not reported.
     *
     * @throws IllegalArgumentException as {@link #send(DatagramTarget, MemorySegment)}
     */
    boolean offer(DatagramTarget to, MemorySegment datagram);

    /** {@link #send(DatagramTarget, MemorySegment)} of {@code datagram}'s bytes. */
    CompletableFuture<Void> send(DatagramTarget to, byte[] datagram);

    /** True once every native object of the endpoint has been freed. */
    boolean isClosed();

    /**
     * Leaves every group, stops answering SIDR requests, flushes and frees the QP, CQ, channel and
     * ids (in the quiesce order), and destroys the address handles of its peers and memberships.
     * Completes when everything is freed; never fails, idempotent.
     */
    CompletableFuture<Void> close();

    /** Completes when the endpoint is closed for any reason. */
    CompletableFuture<Void> closeFuture();
}
