package org.rdmacm4j.cm.core;

import java.lang.foreign.MemorySegment;

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

    /**
     * MULTICAST_ERROR on a joined group (or a re-join that failed at once). The group was left;
     * {@code error.rejoining()} says whether its {@link JoinOptions#rejoin() RejoinPolicy} joins it
     * again (then {@link #onMembershipRejoined} or another error follows) or gave up (then
     * {@link #onMembershipLost} follows).
     */
    default void onMembershipError(DatagramEndpoint endpoint, Membership membership, MulticastException error) { }

    /** The group was joined again after a MULTICAST_ERROR; {@code membership} is usable as before. */
    default void onMembershipRejoined(DatagramEndpoint endpoint, Membership membership) { }

    /** The re-join policy is used up (or is {@link RejoinPolicy#never()}): the membership is left for good. */
    default void onMembershipLost(DatagramEndpoint endpoint, Membership membership, MulticastException error) { }

    /**
     * ADDR_CHANGE on the endpoint's id (e.g. a bonding failover): the endpoint stays open; groups and
     * peers resolved before may need to be joined or resolved again.
     */
    default void onAddressChanged(DatagramEndpoint endpoint) { }

    /** The endpoint failed (QP error, device removed, a failed native call); it is being closed. */
    default void onError(DatagramEndpoint endpoint, RdmaCmException error) { }

    /** Always the last callback. */
    default void onClosed(DatagramEndpoint endpoint) { }
}
