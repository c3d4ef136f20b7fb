package org.rdmacm4j.cm.core;

import java.net.InetAddress;

/**
 * Who sent a received datagram, as the work completion and GRH say. Valid only during
 * {@link DatagramHandler#onDatagram}: do not keep it (keep the values, or {@link #replyTarget(int)}).
 */
public interface DatagramSender {

    /** The sender's QP number ({@code wc.src_qp}). */
    int queuePairNumber();

    /** True if the datagram carried immediate data (rdmacm4j, udaddy and mckey put their QPN there). */
    boolean hasImmediateData();

    /** The immediate data (host order), or 0. */
    int immediateData();

    /** The sender's address from the GRH's source GID (IPv4 for RoCE v2 over IPv4), or null if none. */
    InetAddress address();

    /** True if the datagram was sent to a multicast group (the GRH's destination GID). */
    boolean toGroup();

    /**
     * A peer to reply to: an address handle made from this completion and its GRH
     * ({@code ibv_create_ah_from_wc}), with the QPN {@code qpn} (udaddy replies to the QPN in the
     * immediate data; {@link #queuePairNumber()} is the usual choice). Only during the callback. The
     * caller closes it (or the endpoint's close does).
     */
    DatagramPeer replyTarget(int qpn);
}
