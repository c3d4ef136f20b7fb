package org.rdmacm4j.cm.core.internal.nativeport;

import java.util.List;
import java.util.Map;
import org.rdmacm4j.cm.core.internal.connection.ChannelOffer;
import org.rdmacm4j.cm.core.internal.port.CmPort.EventSink;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.ibv.AsyncEvent;

/**
 * Drains what the kernel has to say, without waiting: the rdma_cm event channel (each event's id
 * found, or made for a connect request; its parameters decoded, a message-channel offer taken out
 * of the private data; a multicast event matched to its group) and the async events of every
 * device in use (routed to the id whose QP or CQ they are about, or to every id on the device).
 *
 * <p>Threads: the dispatcher's.
 */
final class CmEvents {
    /** The parameters of an event that carries none: a record without components, shared by every such event. */
    private static final EventParams NO_PARAMS = new EventParams.None();

    private final CmEventChannel channel;
    private final Map<CmId, VerbsId> ids;
    private final Devices devices;
    private final QueuePairs queuePairs;
    private final DeviceLoss deviceLoss;

    /** {@code ids} is the port's table of ids, shared: a connect request adds its new id to it. */
    CmEvents(CmEventChannel channel, Map<CmId, VerbsId> ids, Devices devices, QueuePairs queuePairs,
             DeviceLoss deviceLoss) {
        this.channel = channel;
        this.ids = ids;
        this.devices = devices;
        this.queuePairs = queuePairs;
        this.deviceLoss = deviceLoss;
    }

    /**
     * With at most this many ids in the port's table, a ready channel is read for one event per
     * epoll_wait report instead of to EAGAIN. With a few connections in flight the events come one
     * at a time, each the answer to a call the dispatcher made, so the read after the first almost
     * always fails with EAGAIN: a write(2) to the rdma_cm fd, a malloc and free in librdmacm and an
     * errno capture (~270 instructions of the JDK's checks) for nothing. The channel's epoll
     * registration is level-triggered (Epoll), so an event left unread makes the next epoll_wait
     * return at once: nothing waits longer, and where two events were pending the second costs that
     * epoll_wait instead of the EAGAIN read. Net, 4.1 fewer system calls per warm connection (87.0 to
     * 82.9, docs/benchmarks.md s39-quiet2) and a third fewer GET_EVENT commands (s39-ab1). With more ids, a
     * storm's events queue up, and one call that finds EAGAIN per batch is cheaper than an epoll_wait
     * per event. A listener, a lone connection's two ends and the ends of the previous one still in
     * their time-wait are five or six.
     */
    static final int READ_ONE_UP_TO_IDS = 8;

    /**
     * Hands the rdma_cm events that are ready to the sink if the last epoll_wait reported the
     * channel ready (to EAGAIN, or only the first: {@link #READ_ONE_UP_TO_IDS}), then every
     * device's async events if it reported an async fd ready (VerbsCmPort#await).
     */
    void drain(EventSink s, boolean channelReady, boolean async) {
        if (channelReady) {
            drainChannel(s, ids.size() <= READ_ONE_UP_TO_IDS ? 1 : Integer.MAX_VALUE);
        }
        if (async) {
            for (Device d : devices.inUse()) {
                drainAsync(d, s);
            }
        }
    }

    /**
     * Reads at most {@code max} events (an unroutable one counts), stopping early at EAGAIN. The
     * first read follows epoll's report and almost always finds an event, so it is made without
     * errno capture (CmEventChannel#getReadyEvent); the later ones, the last of which finds EAGAIN
     * when the whole channel is read, capture.
     */
    private void drainChannel(EventSink s, int max) {
        for (int n = 0; n < max; n++) {
            CmEvent e;
            try {
                e = n == 0 ? channel.getReadyEvent() : channel.getEvent();   // copied and acked inside
            } catch (IllegalStateException unknownId) {
                s.unroutable(unknownId.getMessage());
                continue;
            }
            if (e == null) {
                return;
            }
            deliver(e, s);
        }
    }

    private void deliver(CmEvent e, EventSink s) {
        VerbsId id = VerbsId.of(e.id());
        if (id == null) {
            id = new VerbsId(e.id());   // CONNECT_REQUEST: librdmacm created this id for the request
            id.passive = true;
            id.enter(ids);
        }
        VerbsId listen = e.listenId() == null ? null : VerbsId.of(e.listenId());
        CmEventType type = CmEventType.ofCodeOrNull(e.type().value());
        if (type == null) {
            s.unroutable("unknown rdma_cm event " + e.type() + " ignored");
            return;
        }
        if (type == CmEventType.DEVICE_REMOVAL) {
            id.noteRemoval(deviceLoss);   // before the sink: the id may be destroyed in this step
        }
        s.cmEvent(id, listen, type, e.status(), params(e, id, type));
    }

    /**
     * The event's parameters, with a message-channel offer taken out of the private data of a
     * connect request (remembered for the accept) or of the accept (handed to the data path), so
     * the machines and the application see only the application's bytes.
     */
    private static EventParams params(CmEvent e, VerbsId id, CmEventType type) {
        if (e.conn() != null) {
            ConnParam c = e.conn();
            byte[] data = c.privateData();
            ChannelOffer offer = (type == CmEventType.CONNECT_REQUEST || type == CmEventType.ESTABLISHED)
                    ? ChannelOffer.parse(data) : null;
            if (offer != null) {
                data = ChannelOffer.strip(data);
                if (type == CmEventType.CONNECT_REQUEST) {
                    id.requestOffer = offer;
                } else if (id.dataPath != null && !id.passive) {
                    id.dataPath.peerOffer(offer);
                }
            }
            return new EventParams.Conn(Bytes.of(data), c.responderResources(), c.initiatorDepth(),
                    c.flowControl(), c.retryCount(), c.rnrRetryCount(), c.srq() != 0, c.qpNum());
        }
        if (e.ud() != null) {
            String group = "";
            if (type == CmEventType.MULTICAST_JOIN || type == CmEventType.MULTICAST_ERROR) {
                group = groupOf(id, e.ud(), type == CmEventType.MULTICAST_ERROR);
                if (type == CmEventType.MULTICAST_JOIN && id.groups.containsKey(group)) {
                    id.groups.put(group, e.ud());
                }
            } else if (type == CmEventType.ESTABLISHED) {
                id.udParam = e.ud();
            }
            return new EventParams.Ud(Bytes.of(e.ud().privateData()), Bytes.empty(), e.ud().qpNum(), e.ud().qkey(),
                    group);
        }
        return NO_PARAMS;
    }

    /**
     * The group a MULTICAST_JOIN/ERROR is about: librdmacm hands back the join context, which
     * verbs does not pass, so match the address vector's destination GID (the group's MGID; an
     * IPv4-mapped GID on RoCE) against the groups joined on the id. A MULTICAST_ERROR carries no
     * address vector: it is the oldest join still unanswered (the kernel answers joins in order;
     * on RoCE an error is only ever the answer to a join, cma_iboe_join_multicast), else the
     * only group. (An IB error for one of several joined groups stays unattributed: that needs the
     * join context, which verbs does not pass.)
     */
    private static String groupOf(VerbsId id, org.rdmacm4j.verbs.cm.UdParam ud, boolean error) {
        if (ud.ahAttr() != null && ud.ahAttr().dgid() != null) {
            byte[] gid = ud.ahAttr().dgid().raw();
            for (String g : id.groups.keySet()) {
                try {
                    byte[] a = java.net.InetAddress.getByName(g).getAddress();
                    if (a.length == 4 && gid[12] == a[0] && gid[13] == a[1] && gid[14] == a[2] && gid[15] == a[3]) {
                        return g;
                    }
                } catch (java.net.UnknownHostException ignored) {
                    // group names are literal addresses
                }
            }
        }
        if (error) {
            for (var entry : id.groups.entrySet()) {
                if (entry.getValue() == null) {
                    return entry.getKey();
                }
            }
        }
        return id.groups.size() == 1 ? id.groups.keySet().iterator().next() : "";
    }

    private void drainAsync(Device d, EventSink s) {
        while (true) {
            AsyncEvent a;
            try {
                a = d.context.getAsyncEvent();   // copied and acked inside
            } catch (RuntimeException e) {
                s.unroutable("ibv_get_async_event failed on " + d.context + ": " + e);
                return;
            }
            if (a == null) {
                return;
            }
            var type = AsyncEventType.find(a.type().value());
            if (type.isEmpty()) {
                s.unroutable("unknown async event " + a.type() + " ignored");
                continue;
            }
            VerbsId target = a.queuePair() != null ? queuePairs.ownerOfQp(a.queuePair())
                    : a.completionQueue() != null ? queuePairs.ownerOfCq(a.completionQueue()) : null;
            if (target != null) {
                s.asyncEvent(target, type.get(), a.portNumber());
            } else if (a.queuePair() == null && a.completionQueue() == null && a.sharedReceiveQueue() == null) {
                if (d.users == 0 && type.get() == AsyncEventType.DEVICE_FATAL) {
                    devices.fatal(d);   // an idle device (Devices): nobody to tell, close it now
                    return;
                }
                // Port or device event: every id on this device hears it.
                for (VerbsId id : List.copyOf(ids.values())) {
                    if (id.device == d) {
                        s.asyncEvent(id, type.get(), a.portNumber());
                    }
                }
            } else {
                s.unroutable("async event " + a.type() + " for an object no id owns");
            }
        }
    }
}
