package org.rdmacm4j.cm.core.internal.datagram;

import java.net.InetSocketAddress;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.internal.port.CmPort;
import org.rdmacm4j.cm.core.internal.port.NativeId;

/** What datagram endpoints need of the native port beyond every id's: the objects of the datagram path. */
public interface DatagramPort extends CmPort {
    /**
     * Creates a UD QP on a UD id, with its CQ, completion channel and datagram channel (receives
     * posted), registered with a completion poller. On failure, rolls back what it created.
     */
    default DatagramPath createUdQp(NativeId id, DatagramOptions options) {
        throw CmPort.unsupported("rdma_create_qp");
    }

    /**
     * A peer of the endpoint whose datagram channel is {@code path}, from the UD parameters of the
     * last ESTABLISHED (SIDR reply) on {@code id}: an address handle, the peer's QPN and Q_Key.
     */
    default PeerImpl peer(NativeId id, DatagramPath path, InetSocketAddress address) {
        throw CmPort.unsupported("ibv_create_ah");
    }

    /** The membership of {@code group} from the UD parameters of its MULTICAST_JOIN on {@code id}. */
    default MembershipImpl membership(NativeId id, String group, DatagramPath path, DatagramEnd endpoint,
                                      JoinOptions options) {
        throw CmPort.unsupported("ibv_create_ah");
    }
}
