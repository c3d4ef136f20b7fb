package org.rdmacm4j.cm.core.internal;

import java.net.InetSocketAddress;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.verbs.ibv.AddressHandle;

/** A remote UD QP: an address handle of the endpoint, its QPN and Q_Key. Any thread. */
final class PeerImpl extends DatagramPath.TargetHandle implements DatagramPeer {
    private final InetSocketAddress address;

    PeerImpl(AddressHandle ah, DatagramPath path, int qpn, int qkey, InetSocketAddress address) {
        super(ah, path, qpn, qkey);
        this.address = address;
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public boolean isClosed() {
        return destroyed();
    }

    @Override
    public void close() {
        DatagramEndpointImpl ep = path.endpoint();
        boolean wasClosed = destroyed();
        markClosed();
        if (ep == null || wasClosed) {
            destroy();
            return;
        }
        ep.dispatcher.destroyHandle(this);
    }

    @Override
    public String toString() {
        return "peer[" + (address != null ? address + ", " : "") + "qpn 0x" + Integer.toHexString(queuePairNumber()) + "]";
    }
}
