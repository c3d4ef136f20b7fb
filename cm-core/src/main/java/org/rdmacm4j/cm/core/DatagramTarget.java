package org.rdmacm4j.cm.core;

/**
 * Where a datagram can go: a {@link DatagramPeer} (one remote QP) or a {@link Membership} (a
 * multicast group). Each holds an address handle of the endpoint that made it.
 */
public interface DatagramTarget {

    /** The remote QP number (0xFFFFFF for a multicast group). */
    int queuePairNumber();

    /** The Q_Key sent with each datagram. */
    int qkey();
}
