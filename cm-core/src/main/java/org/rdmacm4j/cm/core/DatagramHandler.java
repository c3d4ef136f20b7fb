package org.rdmacm4j.cm.core;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * What a {@link DatagramEndpoint} tells the application. {@link #onDatagram} runs on the completion
 * poller thread (keep it short; never block there); the others run on the callback executor, one at
 * a time and in order, like {@link ConnectionHandler}'s.
 */
public interface DatagramHandler {

    /**
     * One datagram (without the GRH). {@code data} is a view of the receive buffer valid only during
     * the call: copy what you keep. The buffer is re-posted afterwards.
     */
    void onDatagram(DatagramEndpoint endpoint, DatagramSender from, MemorySegment data);

    /** MULTICAST_ERROR for a group that could not be re-joined (the policy's re-joins used up); the membership is left. */
    default void onMembershipLost(DatagramEndpoint endpoint, InetAddress group, int status) { }

    /** A group was re-joined after a MULTICAST_ERROR. */
    default void onMembershipRejoined(DatagramEndpoint endpoint, InetAddress group) { }

    /** ADDR_CHANGE on the endpoint's id. */
    default void onAddressChanged(DatagramEndpoint endpoint) { }

    /** The endpoint failed (QP error, device removed, a failed native call); it is being closed. */
    default void onError(DatagramEndpoint endpoint, RdmaCmException error) { }

    /** Always the last callback. */
    default void onClosed(DatagramEndpoint endpoint) { }
}
