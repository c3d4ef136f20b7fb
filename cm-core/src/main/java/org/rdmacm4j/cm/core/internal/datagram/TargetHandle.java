package org.rdmacm4j.cm.core.internal.datagram;

import java.lang.System.Logger.Level;
import org.rdmacm4j.cm.core.DatagramTarget;
import org.rdmacm4j.verbs.ibv.AddressHandle;

/**
 * A send target of an endpoint: an address handle with the remote QPN and Q_Key (a peer's, or a
 * group's 0xFFFFFF). Closed by its owner or at the path's release. Any thread.
 */
public abstract class TargetHandle implements DatagramTarget {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    final AddressHandle ah;
    /** The endpoint's targets this one is registered with; identifies the endpoint it may be sent on. */
    final Targets targets;
    private final int qpn;
    private final int qkey;
    /** Set by the owner's close() at once, so the target reads as closed before the dispatcher destroyed the AH. */
    private volatile boolean closed;

    TargetHandle(AddressHandle ah, Targets targets, int qpn, int qkey) {
        this.ah = ah;
        this.targets = targets;
        this.qpn = qpn;
        this.qkey = qkey;
        targets.handles.add(this);
    }

    @Override
    public final int queuePairNumber() {
        return qpn;
    }

    @Override
    public final int qkey() {
        return qkey;
    }

    /** Destroys the AH once (dispatcher thread, or the endpoint's release); a detached path's targets have none. */
    void destroy() {
        if (targets.handles.remove(this) && ah != null) {
            try {
                ah.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "ibv_destroy_ah failed: " + e.getMessage());
            }
        }
    }

    /** The owner closed it: no send may use it from now on; the AH is destroyed on the dispatcher. */
    void markClosed() {
        closed = true;
    }

    boolean destroyed() {
        return closed || !targets.handles.contains(this);
    }
}
