package org.rdmacm4j.cm.core.internal.nativeport;

import java.util.Map;
import org.rdmacm4j.cm.core.internal.connection.ChannelOffer;
import org.rdmacm4j.cm.core.internal.connection.DataPath;
import org.rdmacm4j.cm.core.internal.connection.OneSided;
import org.rdmacm4j.cm.core.internal.datagram.DatagramPath;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.CqRegistration;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.QueuePair;

/**
 * The native objects of one id: its rdma_cm_id and what the port made for it (QP, CQ, completion
 * channel, the device it holds, its poller registration) and the paths on its QP.
 *
 * <p>Threads: the dispatcher's, except the fields marked volatile, which a completion poller's
 * router also reads.
 */
final class VerbsId extends NativeId {
    final CmId cmId;
    QueuePair qp;
    CompletionQueue cq;
    CompletionChannel channel;
    /** The CQ size the port asked for (what a spare CQ is matched by); 0 for a UD QP's. */
    int cqAsked;
    Device device;
    /**
     * The CQ's registration with its poller (made with the CQ, started when work can first be
     * posted); its state is its own, under its monitor, since the application may start it.
     */
    CqRegistration registration;
    DataPath dataPath;
    OneSided oneSided;
    /** Set by the dispatcher once established (if asked); read by the poller's router. */
    volatile Keepalive keepalive;
    /** Raw connections: where completions of the application's own work go (its handler). */
    volatile CompletionSink rawSink;
    /** Passive ids: created by librdmacm for a connection request. */
    boolean passive;
    /** Passive ids: the channel offer in the peer's request, or null. */
    ChannelOffer requestOffer;
    /** UD ids: the datagram channel on the UD QP. */
    DatagramPath datagramPath;
    /** UD ids: the UD parameters of the last ESTABLISHED (a SIDR reply). */
    org.rdmacm4j.verbs.cm.UdParam udParam;
    /** UD ids: groups joined or joining, and the UD parameters of their MULTICAST_JOIN. */
    final Map<String, org.rdmacm4j.verbs.cm.UdParam> groups = new java.util.LinkedHashMap<>();

    /** In the port's table: between {@link #enter} and {@link #leave}. */
    private boolean inTable;

    VerbsId(CmId cmId) {
        this.cmId = cmId;
    }

    /**
     * Enters this id in the port's table and attaches it to its CmId, the two together: the table
     * is what the port iterates, the attachment is how an event's id finds its wrapper without a
     * lookup (an identity map's hash is a native call under C1). Dispatcher thread.
     */
    void enter(Map<CmId, VerbsId> ids) {
        ids.put(cmId, this);
        cmId.attach(this);
        inTable = true;
    }

    /** Takes this id out of the port's table and off its CmId: a later event of it finds no wrapper. */
    void leave(Map<CmId, VerbsId> ids) {
        ids.remove(cmId);
        cmId.attach(null);
        inTable = false;
    }

    /**
     * True if this id is in the port's table, open, and bound to the device context {@code handle}
     * (its cached {@link CmId#deviceHandle}): what keeps an idle device open ({@link Devices.BoundIds}).
     */
    static boolean boundToDevice(VerbsId id, long handle) {
        return id.inTable && !id.cmId.isClosed() && id.cmId.deviceHandle() == handle;
    }

    /** The wrapper {@link #enter} attached to {@code cmId}, or null (a cast to this final class). */
    static VerbsId of(CmId cmId) {
        return (VerbsId) cmId.attachment();
    }

    /** The port's own id behind the dispatcher's handle (every NativeId the port hands out is one). */
    static VerbsId v(NativeId id) {
        return (VerbsId) id;
    }

    /** Tells {@code loss} which librdmacm context this id's DEVICE_REMOVAL is about. */
    void noteRemoval(DeviceLoss loss) {
        try {
            loss.removed(cmId.context());
        } catch (IllegalStateException unboundOrClosed) {
            // no context to let go of
        }
    }

    /** True if this id is open and bound to the device context {@code handle}. */
    boolean boundTo(long handle) {
        if (cmId.isClosed()) {
            return false;
        }
        try {
            return cmId.context().handle() == handle;
        } catch (IllegalStateException unbound) {
            return false;
        }
    }

    @Override
    public String toString() {
        return cmId.toString();
    }
}
