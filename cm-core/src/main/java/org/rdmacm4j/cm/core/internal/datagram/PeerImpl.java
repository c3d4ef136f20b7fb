package org.rdmacm4j.cm.core.internal.datagram;

import java.net.InetSocketAddress;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.verbs.ibv.AddressHandle;

/** A remote UD QP: an address handle of the endpoint, its QPN and Q_Key. Any thread. */
public final class PeerImpl extends TargetHandle implements DatagramPeer {
    private final InetSocketAddress address;

    public PeerImpl(AddressHandle ah, Targets targets, int qpn, int qkey, InetSocketAddress address) {
        super(ah, targets, qpn, qkey);
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
        DatagramEnd ep = targets.endpoint();
        boolean wasClosed = destroyed();
        markClosed();
        if (ep == null || wasClosed) {
            destroy();
            return;
        }
        ep.onDispatcher(this::destroy);
    }

    @Override
    public String toString() {
        return "peer[" + (address != null ? address + ", " : "") + "qpn 0x" + Integer.toHexString(queuePairNumber()) + "]";
    }
}
