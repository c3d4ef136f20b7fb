package org.rdmacm4j.cm.core.internal.nativeport;

import static org.rdmacm4j.cm.core.internal.nativeport.PortFailures.closeQuietly;
import static org.rdmacm4j.cm.core.internal.nativeport.PortFailures.failed;
import static org.rdmacm4j.cm.core.internal.nativeport.VerbsId.v;

import java.lang.System.Logger.Level;
import java.util.IdentityHashMap;
import java.util.Map;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.internal.connection.DataPath;
import org.rdmacm4j.cm.core.internal.connection.OneSided;
import org.rdmacm4j.cm.core.internal.datagram.DatagramPath;
import org.rdmacm4j.cm.core.internal.poll.CompletionWatch;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.QpAttributes;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QpState;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.QueuePair;

/**
 * The ids' queue pairs and what completes them: creates an RC QP (with its CQ, completion channel,
 * message channel and one-sided operations) or a UD QP (with its datagram channel) on the id's
 * device, registers the CQ with a completion poller when work can first be posted on it (at once
 * for a message channel's or datagram channel's receives; else at the keepalive's start, the first
 * one-sided operation or the application's first raw(): {@code CqRegistration}) and routes its
 * completions, hands out the paths and raw access, and drains, quiesces and destroys QP, CQ and
 * channel (a CQ no poller ever saw goes back to its device's {@link CqSpares}, and the next QP of
 * that CQ size takes it); it knows which id a QP or CQ belongs to, for the async events.
 *
 * <p>Threads: the dispatcher's; the router a CQ's completions go through runs on its poller's.
 */
final class QueuePairs {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    private final Devices devices;
    private final Leaks leaks;
    private final Map<QueuePair, VerbsId> byQp = new IdentityHashMap<>();
    private final Map<CompletionQueue, VerbsId> byCq = new IdentityHashMap<>();
    private final CompletionPollers pollers;

    QueuePairs(CompletionPollers pollers, Devices devices, Leaks leaks) {
        this.pollers = pollers;
        this.devices = devices;
        this.leaks = leaks;
    }

    /** The id whose QP it is, or null. */
    VerbsId ownerOfQp(QueuePair qp) {
        return byQp.get(qp);
    }

    /** The id whose CQ it is, or null. */
    VerbsId ownerOfCq(CompletionQueue cq) {
        return byCq.get(cq);
    }

    void createQp(NativeId nid, QpCapabilities asked, org.rdmacm4j.cm.core.MessagingOptions messaging) {
        VerbsId id = v(nid);
        if (id.qp != null) {
            return;
        }
        if (id.passive && id.requestOffer == null) {
            messaging = null;   // the peer offered no message channel: a raw connection
        }
        // The send queue holds the application's raw work (asked), the message channel's and the
        // one-sided operations' and the keepalive probe's (reserved even if the connection never
        // starts one: the keepalive is decided at ESTABLISHED); the CQ holds every completion of both queues.
        int sends = asked.maxSendWr() + asked.oneSidedDepth() + Keepalive.SEND_QUEUE_ENTRIES
                + (messaging == null ? 0 : DataPath.sendQueueNeeded(messaging));
        int recvs = messaging == null ? asked.maxRecvWr() : Math.max(asked.maxRecvWr(), DataPath.recvQueueNeeded(messaging));
        QpCapabilities caps = new QpCapabilities(sends, recvs, asked.maxSendSge(), asked.maxRecvSge(),
                asked.maxInlineData(), Math.max(asked.cqSize(), sends + recvs));
        Device dev = devices.deviceOf(id);
        boolean madeChannel = false;
        boolean madeCq = false;
        try {
            if (id.channel == null && id.cq == null) {
                CqSpares.Spare spare = dev.spares.take(caps.cqSize());
                if (spare != null) {   // empty, never armed: as a new one, without the native calls
                    id.channel = spare.channel();
                    id.cq = spare.cq();
                    madeChannel = true;
                    madeCq = true;
                }
            }
            if (id.channel == null) {
                id.channel = dev.context.createCompletionChannel();
                id.channel.setNonBlocking(true);
                madeChannel = true;
            }
            if (id.cq == null) {
                id.cq = dev.context.createCq(caps.cqSize(), id.channel, 0);
                madeCq = true;
            }
            id.qp = id.cmId.createQp(dev.pd, new QpInitAttributes(QpType.RC, id.cq, id.cq, null, caps.maxSendWr(),
                    caps.maxRecvWr(), caps.maxSendSge(), caps.maxRecvSge(), caps.maxInlineData(), false));
            if (messaging != null) {
                try {
                    id.dataPath = new DataPath(id.qp, dev.pool, messaging);
                } catch (RuntimeException e) {
                    closeQuietly(id.qp);
                    id.qp = null;
                    throw e;
                }
                if (id.passive) {
                    id.dataPath.peerOffer(id.requestOffer);
                }
            }
            if (madeCq) {
                id.cqAsked = caps.cqSize();
                id.registration = pollers.registration(id, CompletionPollers.router(id));
            }
            id.oneSided = new OneSided(id.qp, dev.pd, dev.pool, asked.oneSidedDepth(),
                    id.registration == null ? CompletionWatch.ALREADY : id.registration);
        } catch (RdmaException e) {
            if (madeCq) {
                id.registration = null;   // never started: no poller knows the CQ
                closeQuietly(id.cq);
                id.cq = null;
            }
            if (madeChannel) {
                closeQuietly(id.channel);
                id.channel = null;
            }
            devices.releaseIfUnused(id);
            throw failed(e);
        }
        byQp.put(id.qp, id);
        if (madeCq) {
            byCq.put(id.cq, id);
            if (id.dataPath != null) {
                id.registration.start();   // the message channel posted its receives
            }
            // Otherwise nothing is posted yet: the keepalive, the first one-sided operation or the
            // application's first raw() starts it; a connection that never posts costs its poller nothing.
        }
    }

    DatagramPath createUdQp(NativeId nid, org.rdmacm4j.cm.core.DatagramOptions options) {
        VerbsId id = v(nid);
        int receives = options.receiveBuffers();
        int sends = options.sendBuffers();
        if (id.qp != null) {
            return id.datagramPath;
        }
        Device dev = devices.deviceOf(id);
        try {
            int port = id.cmId.portNumber();
            int mtu = 128 << dev.context.queryPort(port).activeMtu().value();
            id.channel = dev.context.createCompletionChannel();
            id.channel.setNonBlocking(true);
            id.cq = dev.context.createCq(receives + sends, id.channel, 0);
            id.qp = id.cmId.createQp(dev.pd, QpInitAttributes.of(QpType.UD, id.cq, id.cq, sends, receives, 1, 0));
            id.datagramPath = new DatagramPath(id.qp, dev.pd, dev.pool, port, mtu, receives, sends,
                    options.maxQueuedSends());
        } catch (RuntimeException e) {
            if (id.qp != null) {
                closeQuietly(id.qp);
                id.qp = null;
            }
            closeQuietly(id.cq);
            id.cq = null;
            closeQuietly(id.channel);
            id.channel = null;
            devices.releaseIfUnused(id);
            if (e instanceof RdmaException r) {
                throw failed(r);
            }
            throw new PortCallException("rdma_create_qp", 12, "UD QP setup failed: " + e, e);
        }
        byQp.put(id.qp, id);
        byCq.put(id.cq, id);
        id.registration = pollers.registration(id, id.datagramPath);
        id.registration.start();   // the datagram channel posted its receives
        return id.datagramPath;
    }

    org.rdmacm4j.cm.core.RawQueuePair raw(NativeId nid) {
        VerbsId id = v(nid);
        return id.qp == null ? null : new org.rdmacm4j.cm.core.RawQueuePair(id.qp, id.cq, id.device.pd);
    }

    /** What the application's first raw() starts before it may post: the CQ's registration. */
    CompletionWatch completionWatch(NativeId nid) {
        VerbsId id = v(nid);
        return id.registration == null ? CompletionWatch.ALREADY : id.registration;
    }

    void drainQp(NativeId nid, Runnable drained) {
        VerbsId id = v(nid);
        markClosing(id);
        if (id.registration != null && id.registration.closeIfUnused()) {
            // Nothing was ever posted on the QP (whatever posts starts the registration first, and
            // none can start it now): nothing to flush, so no move to ERR (an ibv_modify_qp per end;
            // rdma_disconnect made that move already on most paths). The teardown goes on at once.
            drained.run();
            return;
        }
        if (id.qp != null) {
            try {
                // rdma_disconnect already moved it to ERR in most paths; make sure, so posted work flushes.
                id.qp.modify(new QpAttributes().state(QpState.ERR));
            } catch (RdmaException e) {
                LOG.log(Level.DEBUG, "moving the QP to ERR: " + e.getMessage());
            }
        }
        if (id.registration == null) {
            drained.run();
        } else {
            id.registration.drain(drained);   // at once if never registered: nothing posted, nothing flushes
        }
    }

    /** The QP is about to go to ERR on purpose: its paths stop sending and take its flushes as ours. */
    static void markClosing(VerbsId id) {
        if (id.dataPath != null) {
            id.dataPath.closing();
        }
        if (id.oneSided != null) {
            id.oneSided.closing();
        }
        if (id.keepalive != null) {
            id.keepalive.closing();
        }
        if (id.datagramPath != null) {
            id.datagramPath.closing();
        }
    }

    void destroyQp(NativeId nid) {
        VerbsId id = v(nid);
        if (id.qp == null) {
            return;
        }
        try {
            id.qp.close();
            byQp.remove(id.qp);
            id.qp = null;
            if (id.dataPath != null) {
                id.dataPath.release();   // the QP is gone: its buffers can go back to the pool
                id.dataPath = null;
            }
            if (id.oneSided != null) {
                id.oneSided.release();   // and the application's regions can be deregistered
                id.oneSided = null;
            }
            if (id.keepalive != null) {
                id.keepalive.release();   // the poller quiesced before DestroyQp: no tick can follow
                id.keepalive = null;
            }
            if (id.datagramPath != null) {
                id.datagramPath.release();   // also destroys the endpoint's address handles (before the PD)
                id.datagramPath = null;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rdma_destroy_qp failed for " + id + "; leaking the QP", e);
            leaks.giveUp(id.qp);
            id.qp = null;
        }
        devices.releaseIfUnused(id);
    }

    void destroyCq(NativeId nid) {
        VerbsId id = v(nid);
        if (id.cq == null) {
            return;
        }
        if (id.registration != null && !id.registration.mayDestroy()) {
            // Never destroy a CQ a poller may still touch (the machine quiesces first; this is the guard).
            LOG.log(Level.ERROR, "DestroyCq before the CQ was quiesced for " + id + "; leaking the CQ");
            leaks.giveUp(id.cq);
        } else if (keepable(id) && id.device.spares.offer(id.cqAsked, id.channel, id.cq)) {
            id.channel = null;   // kept with its CQ, for the device's next QP: no DestroyCompChannel to do
        } else {
            try {
                id.cq.close();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "ibv_destroy_cq failed for " + id + "; leaking the CQ", e);
                leaks.giveUp(id.cq);
            }
        }
        byCq.remove(id.cq);
        id.cq = null;
        devices.releaseIfUnused(id);
    }

    /**
     * Whether the id's CQ may be kept as a spare ({@link CqSpares}): an RC QP's, its QP gone, its
     * registration closed without ever starting (so nothing was posted and no poller saw it).
     */
    private static boolean keepable(VerbsId id) {
        return id.qp == null && id.cqAsked > 0 && id.device != null && id.channel != null
                && id.registration != null && id.registration.closedUnused();
    }

    void destroyCompChannel(NativeId nid) {
        VerbsId id = v(nid);
        if (id.channel == null) {
            return;
        }
        try {
            id.channel.close();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "ibv_destroy_comp_channel failed for " + id + "; leaking it", e);
            leaks.giveUp(id.channel);
        }
        id.channel = null;
        devices.releaseIfUnused(id);
    }

    /** Gives up the id's QP, CQ and channel as they are (the id is leaked with them). */
    void leak(VerbsId id) {
        if (id.qp != null) {
            byQp.remove(id.qp);
            leaks.giveUp(id.qp);
        }
        if (id.cq != null) {
            byCq.remove(id.cq);
            leaks.giveUp(id.cq);
        }
        if (id.channel != null) {
            leaks.giveUp(id.channel);
        }
    }
}
