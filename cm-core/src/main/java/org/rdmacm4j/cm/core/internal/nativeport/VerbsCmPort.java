package org.rdmacm4j.cm.core.internal.nativeport;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.internal.NativePort;
import org.rdmacm4j.cm.core.internal.connection.ChannelOffer;
import org.rdmacm4j.cm.core.internal.connection.DataPath;
import org.rdmacm4j.cm.core.internal.connection.OneSided;
import org.rdmacm4j.cm.core.internal.datagram.DatagramEnd;
import org.rdmacm4j.cm.core.internal.datagram.DatagramPath;
import org.rdmacm4j.cm.core.internal.datagram.MembershipImpl;
import org.rdmacm4j.cm.core.internal.datagram.PeerImpl;
import org.rdmacm4j.cm.core.internal.poll.CompletionPoller;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.core.internal.poll.SlotPool;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.cm.CmDevices;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.McJoinFlag;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.ibv.AsyncEvent;
import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.DeviceAttributes;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpAttributes;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QpState;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.sys.Epoll;
import org.rdmacm4j.verbs.sys.EventFd;

/**
 * The real {@link CmPort}: librdmacm and libibverbs through {@code verbs}. One rdma_cm event
 * channel (non-blocking), one epoll over it, a wake-up eventfd and the async fd of every device in
 * use; a shared PD per device, freed with its last QP; completion pollers for the CQs.
 *
 * <p>Threads: the dispatcher's, except {@link #wakeup()}.
 */
public final class VerbsCmPort implements NativePort {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private static final long TOKEN_CM = 1;
    private static final long TOKEN_WAKE = 2;
    private static final int ENODEV = 19;

    /** The native objects of one id. */
    static final class VerbsId extends NativeId {
        final CmId cmId;
        QueuePair qp;
        CompletionQueue cq;
        CompletionChannel channel;
        Device device;
        CompletionPoller poller;
        long pollerToken;
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

        VerbsId(CmId cmId) {
            this.cmId = cmId;
        }

        @Override
        public String toString() {
            return cmId.toString();
        }
    }

    /** A device in use: librdmacm's context (borrowed through rdma_get_devices), its PD, its async fd. */
    private static final class Device {
        final CmDevices snapshot;
        final DeviceContext context;
        final ProtectionDomain pd;
        final SlotPool pool;
        final long token;
        int users;

        Device(CmDevices snapshot, DeviceContext context, long token) {
            this.snapshot = snapshot;
            this.context = context;
            this.pd = context.allocatePd();
            this.pool = new SlotPool(pd);
            this.token = token;
        }
    }

    private final CmEventChannel channel;
    private final Epoll epoll;
    private final EventFd wake;
    private final Map<CmId, VerbsId> ids = new IdentityHashMap<>();
    private final Map<Long, Device> devices = new HashMap<>();
    /**
     * Devices whose last id is gone but whose PD still holds the application's own memory
     * regions (raw access: registered on {@link org.rdmacm4j.cm.core.RawQueuePair#protectionDomain()}
     * and deregistered after the connection closed). Closed at the next release or at close().
     */
    private final java.util.List<Device> lingering = new java.util.ArrayList<>();
    private final Map<Long, CmTuning> limitsByContext = new HashMap<>();
    private final Map<QueuePair, VerbsId> byQp = new IdentityHashMap<>();
    private final Map<CompletionQueue, VerbsId> byCq = new IdentityHashMap<>();
    private final List<Object> leaked = new ArrayList<>();
    private final CompletionPoller[] pollers;
    private int nextPoller;
    private long nextDeviceToken = 100;
    private EventSink sink;

    private VerbsCmPort(int pollerThreads, String name) {
        this.channel = CmEventChannel.create();
        channel.setNonBlocking(true);
        this.epoll = Epoll.create(64);
        this.wake = EventFd.create();
        epoll.add(channel.fd(), TOKEN_CM);
        epoll.add(wake.fd(), TOKEN_WAKE);
        this.pollers = new CompletionPoller[pollerThreads];
        for (int i = 0; i < pollerThreads; i++) {
            pollers[i] = new CompletionPoller(name + "-poller-" + i);
        }
    }

    /** Opens the event channel, epoll and pollers. Throws IllegalStateException if librdmacm is missing. */
    public static VerbsCmPort open(int pollerThreads, String name) {
        return new VerbsCmPort(pollerThreads, name);
    }

    // ------------------------------------------------------------------ waiting and events

    @Override
    public void await(long timeoutNanos) {
        long ms = timeoutNanos <= 0 ? 0 : Math.max(1, (timeoutNanos + 999_999) / 1_000_000);
        epoll.await(ms);
    }

    @Override
    public void wakeup() {
        wake.signal();
    }

    @Override
    public void drainEvents(EventSink s) {
        this.sink = s;
        wake.drain();
        while (true) {
            CmEvent e;
            try {
                e = channel.getEvent();   // copied and acked inside
            } catch (IllegalStateException unknownId) {
                s.unroutable(unknownId.getMessage());
                continue;
            }
            if (e == null) {
                break;
            }
            deliver(e, s);
        }
        for (Device d : List.copyOf(devices.values())) {
            drainAsync(d, s);
        }
    }

    private void deliver(CmEvent e, EventSink s) {
        VerbsId id = ids.get(e.id());
        if (id == null) {
            id = new VerbsId(e.id());   // CONNECT_REQUEST: librdmacm created this id for the request
            id.passive = true;
            ids.put(e.id(), id);
        }
        VerbsId listen = e.listenId() == null ? null : ids.get(e.listenId());
        var type = CmEventType.find(e.type().value());
        if (type.isEmpty()) {
            s.unroutable("unknown rdma_cm event " + e.type() + " ignored");
            return;
        }
        s.cmEvent(id, listen, type.get(), e.status(), params(e, id, type.get()));
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
        return new EventParams.None();
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
            VerbsId target = a.queuePair() != null ? byQp.get(a.queuePair())
                    : a.completionQueue() != null ? byCq.get(a.completionQueue()) : null;
            if (target != null) {
                s.asyncEvent(target, type.get(), a.portNumber());
            } else if (a.queuePair() == null && a.completionQueue() == null && a.sharedReceiveQueue() == null) {
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

    // ------------------------------------------------------------------ ids

    @Override
    public NativeId createId() {
        return createId(PortSpace.TCP);
    }

    @Override
    public NativeId createUdId() {
        return createId(PortSpace.UDP);
    }

    private NativeId createId(PortSpace portSpace) {
        try {
            CmId cmId = channel.createId(portSpace);
            VerbsId id = new VerbsId(cmId);
            ids.put(cmId, id);
            return id;
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public DatagramPath createUdQp(NativeId nid, org.rdmacm4j.cm.core.DatagramOptions options) {
        VerbsId id = v(nid);
        int receives = options.receiveBuffers();
        int sends = options.sendBuffers();
        if (id.qp != null) {
            return id.datagramPath;
        }
        Device dev = device(id);
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
            releaseDeviceIfUnused(id);
            if (e instanceof RdmaException r) {
                throw failed(r);
            }
            throw new PortCallException("rdma_create_qp", 12, "UD QP setup failed: " + e, e);
        }
        byQp.put(id.qp, id);
        byCq.put(id.cq, id);
        id.poller = pollers[nextPoller++ % pollers.length];
        id.pollerToken = id.poller.register(id.channel, id.cq, id.datagramPath);
        return id.datagramPath;
    }

    @Override
    public void acceptSidr(NativeId nid, Bytes privateData, int qpNum) {
        try {
            v(nid).cmId.accept(new ConnParam(privateData.toArray(), 0, 0, 0, 0, 0, 0, qpNum));
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public void joinMulticast(NativeId nid, String group, boolean sendOnly) {
        VerbsId id = v(nid);
        try {
            id.groups.put(group, null);
            id.cmId.joinMulticast(new InetSocketAddress(java.net.InetAddress.getByName(group), 0),
                    sendOnly ? McJoinFlag.SENDONLY_FULLMEMBER : McJoinFlag.FULLMEMBER);
        } catch (RdmaException e) {
            id.groups.remove(group);
            throw failed(e);
        } catch (java.net.UnknownHostException e) {
            id.groups.remove(group);
            throw new PortCallException("rdma_join_multicast_ex", 22, "not an address: " + group, e);
        }
    }

    @Override
    public void leaveMulticast(NativeId nid, String group) {
        VerbsId id = v(nid);
        if (id.groups.remove(group) == null && !id.groups.isEmpty()) {
            // a join that never completed is left as well (librdmacm cancels it)
        }
        try {
            id.cmId.leaveMulticast(new InetSocketAddress(java.net.InetAddress.getByName(group), 0));
        } catch (RdmaException | java.net.UnknownHostException e) {
            LOG.log(Level.DEBUG, "rdma_leave_multicast " + group + ": " + e.getMessage());
        }
    }

    @Override
    public PeerImpl peer(NativeId nid, DatagramPath path, InetSocketAddress address) {
        org.rdmacm4j.verbs.cm.UdParam ud = v(nid).udParam;
        if (ud == null || ud.ahAttr() == null) {
            throw new PortCallException("ibv_create_ah", 22, "no SIDR reply with an address vector on " + nid, null);
        }
        try {
            return new PeerImpl(path.pd.createAh(ud.ahAttr()), path.targets, ud.qpNum(), ud.qkey(), address);
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public MembershipImpl membership(NativeId nid, String group, DatagramPath path, DatagramEnd endpoint,
                                     org.rdmacm4j.cm.core.JoinOptions options) {
        org.rdmacm4j.verbs.cm.UdParam ud = v(nid).groups.get(group);
        if (ud == null || ud.ahAttr() == null) {
            throw new PortCallException("ibv_create_ah", 22, "no MULTICAST_JOIN address vector for " + group, null);
        }
        try {
            return new MembershipImpl(path.pd.createAh(ud.ahAttr()), path.targets, endpoint,
                    java.net.InetAddress.getByName(group), options, ud.qpNum(), ud.qkey());
        } catch (RdmaException e) {
            throw failed(e);
        } catch (java.net.UnknownHostException e) {
            throw new PortCallException("ibv_create_ah", 22, "not an address: " + group, e);
        }
    }

    @Override
    public void bind(NativeId id, InetSocketAddress address) {
        try {
            v(id).cmId.bind(address);
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public void listen(NativeId id, int backlog) {
        try {
            v(id).cmId.listen(backlog);
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public void resolveAddr(NativeId id, InetSocketAddress source, InetSocketAddress destination, int timeoutMs) {
        try {
            v(id).cmId.resolveAddress(source, destination, Duration.ofMillis(timeoutMs));
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public void resolveRoute(NativeId id, int timeoutMs) {
        try {
            v(id).cmId.resolveRoute(Duration.ofMillis(timeoutMs));
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public void setTypeOfService(NativeId id, int tos) {
        try {
            v(id).cmId.setTypeOfService(tos);
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public void setAckTimeout(NativeId id, int exponent) {
        try {
            v(id).cmId.setAckTimeout(exponent);
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public void createQp(NativeId nid, QpCapabilities asked, org.rdmacm4j.cm.core.MessagingOptions messaging) {
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
        Device dev = device(id);
        boolean madeChannel = false;
        boolean madeCq = false;
        try {
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
            id.oneSided = new OneSided(id.qp, dev.pd, dev.pool, asked.oneSidedDepth());
        } catch (RdmaException e) {
            if (madeCq) {
                closeQuietly(id.cq);
                id.cq = null;
            }
            if (madeChannel) {
                closeQuietly(id.channel);
                id.channel = null;
            }
            releaseDeviceIfUnused(id);
            throw failed(e);
        }
        byQp.put(id.qp, id);
        if (madeCq) {
            byCq.put(id.cq, id);
            id.poller = pollers[nextPoller++ % pollers.length];
            id.pollerToken = id.poller.register(id.channel, id.cq, router(id));
        }
    }

    /** The device of the id, opened (PD allocated, async fd watched) on first use. */
    private Device device(VerbsId id) {
        if (id.device != null) {
            return id.device;
        }
        long handle;
        try {
            handle = id.cmId.context().handle();
        } catch (IllegalStateException unbound) {
            throw new PortCallException("rdma_create_qp", ENODEV, "the id is not bound to a device", unbound);
        }
        Device dev = devices.get(handle);
        if (dev == null) {
            CmDevices snapshot = CmDevices.open();
            DeviceContext ctx = null;
            for (DeviceContext c : snapshot.contexts()) {
                if (c.handle() == handle) {
                    ctx = c;
                }
            }
            if (ctx == null) {
                snapshot.close();
                throw new PortCallException("rdma_create_qp", ENODEV,
                        "the id's device is not in rdma_get_devices' list", null);
            }
            try {
                dev = new Device(snapshot, ctx, nextDeviceToken++);
                ctx.setAsyncNonBlocking(true);
                epoll.add(ctx.asyncFd(), dev.token);
            } catch (RdmaException e) {
                if (dev != null) {
                    closeQuietly(dev.pd);
                }
                closeQuietly(snapshot);
                throw failed(e);
            }
            devices.put(handle, dev);
        }
        dev.users++;
        id.device = dev;
        return dev;
    }

    private void releaseDeviceIfUnused(VerbsId id) {
        Device dev = id.device;
        if (dev == null || id.qp != null || id.cq != null || id.channel != null) {
            return;
        }
        id.device = null;
        if (--dev.users > 0) {
            return;
        }
        devices.values().remove(dev);
        try {
            epoll.remove(dev.context.asyncFd());
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "epoll remove of an async fd: " + e);
        }
        closeQuietly(dev.pool);
        lingering.add(dev);
        closeLingering(false);
    }

    /** Closes the PD and device list of every lingering device whose PD the application has emptied. */
    private void closeLingering(boolean last) {
        for (java.util.Iterator<Device> it = lingering.iterator(); it.hasNext(); ) {
            Device dev = it.next();
            try {
                dev.pd.close();
            } catch (IllegalStateException e) {
                if (!last) {
                    LOG.log(Level.DEBUG, "the application still has objects on " + dev.pd + "; closed later");
                    continue;
                }
                LOG.log(Level.ERROR, "closing " + dev.pd + " failed (the application did not close its objects)", e);
            }
            it.remove();
            closeQuietly(dev.snapshot);
        }
    }

    @Override
    public void connect(NativeId id, Bytes privateData, CmTuning t) {
        try {
            VerbsId vid = v(id);
            vid.cmId.connect(param(withOffer(vid, privateData), t));
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    @Override
    public void accept(NativeId id, Bytes privateData, CmTuning t) {
        try {
            VerbsId vid = v(id);
            vid.cmId.accept(param(withOffer(vid, privateData), t));
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    /**
     * Routes each completion of the id's CQ: one-sided operations, the message channel, and (raw
     * connections) the application's own work to its handler.
     */
    private static CompletionSink router(VerbsId id) {
        OneSided ops = id.oneSided;
        DataPath channel = id.dataPath;
        return (wc, i) -> {
            long kind = wc.wrId(i) & OneSided.KIND_MASK;
            if (kind == OneSided.KIND) {
                ops.onCompletion(wc, i);
            } else if (kind == Keepalive.KIND) {
                Keepalive k = id.keepalive;
                if (k != null) {
                    k.onCompletion(wc, i);
                }
            } else if (channel != null) {
                channel.onCompletion(wc, i);
            } else if (id.rawSink != null) {
                id.rawSink.onCompletion(wc, i);
            }
        };
    }

    @Override
    public boolean startKeepalive(NativeId nid, org.rdmacm4j.cm.core.KeepaliveOptions options,
                                  Keepalive.Verdict verdict) {
        VerbsId id = v(nid);
        if (id.qp == null || id.poller == null || id.keepalive != null) {
            return false;
        }
        Keepalive k = new Keepalive(options, Keepalive.zeroLengthWrite(id.qp), verdict);
        id.keepalive = k;
        id.poller.startKeepalive(id.pollerToken, k);
        return true;
    }

    @Override
    public OneSided oneSided(NativeId id) {
        return v(id).oneSided;
    }

    @Override
    public void rawCompletions(NativeId id, CompletionSink sink) {
        v(id).rawSink = sink;
    }

    @Override
    public org.rdmacm4j.cm.core.RawQueuePair raw(NativeId nid) {
        VerbsId id = v(nid);
        return id.qp == null ? null : new org.rdmacm4j.cm.core.RawQueuePair(id.qp, id.cq, id.device.pd);
    }

    /** The application's private data, preceded by our message-channel offer if the id has a channel. */
    private static Bytes withOffer(VerbsId id, Bytes privateData) {
        return id.dataPath == null ? privateData : id.dataPath.offer().prependTo(privateData);
    }

    @Override
    public DataPath dataPath(NativeId id) {
        return v(id).dataPath;
    }

    private static ConnParam param(Bytes privateData, CmTuning t) {
        return new ConnParam(privateData.toArray(), t.responderResources(), t.initiatorDepth(), 0, t.retryCount(),
                t.rnrRetryCount(), 0, 0);
    }

    @Override
    public void reject(NativeId id, Bytes privateData) {
        try {
            v(id).cmId.reject(privateData.toArray());
        } catch (RdmaException e) {
            LOG.log(Level.DEBUG, "rdma_reject: " + e.getMessage());
        }
    }

    @Override
    public void notifyEstablished(NativeId id) {
        try {
            v(id).cmId.notify(org.rdmacm4j.verbs.ibv.AsyncEventType.COMM_EST);
        } catch (RdmaException e) {
            LOG.log(Level.DEBUG, "rdma_notify: " + e.getMessage());
        }
    }

    @Override
    public void disconnect(NativeId id) {
        // librdmacm moves an IB/RoCE QP to ERR before it sends the DREQ: the flushes that follow are ours.
        markClosing(v(id));
        try {
            v(id).cmId.disconnect();
        } catch (RdmaException e) {
            // EINVAL when the CM already ended the connection: expected on crossing disconnects.
            LOG.log(Level.DEBUG, "rdma_disconnect: " + e.getMessage());
        }
    }

    @Override
    public void drainQp(NativeId nid, Runnable drained) {
        VerbsId id = v(nid);
        markClosing(id);
        if (id.qp != null) {
            try {
                // rdma_disconnect already moved it to ERR in most paths; make sure, so posted work flushes.
                id.qp.modify(new QpAttributes().state(QpState.ERR));
            } catch (RdmaException e) {
                LOG.log(Level.DEBUG, "moving the QP to ERR: " + e.getMessage());
            }
        }
        if (id.poller == null) {
            drained.run();
        } else {
            id.poller.drain(id.pollerToken, drained);
        }
    }

    /** The QP is about to go to ERR on purpose: its paths stop sending and take its flushes as ours. */
    private static void markClosing(VerbsId id) {
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

    @Override
    public void quiesceCq(NativeId nid, Runnable quiesced) {
        VerbsId id = v(nid);
        if (id.poller == null) {
            quiesced.run();
        } else {
            CompletionPoller p = id.poller;
            id.poller = null;
            p.quiesce(id.pollerToken, quiesced);
        }
    }

    @Override
    public void destroyQp(NativeId nid) {
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
            giveUp(id.qp);
            id.qp = null;
        }
        releaseDeviceIfUnused(id);
    }

    @Override
    public void destroyCq(NativeId nid) {
        VerbsId id = v(nid);
        if (id.cq == null) {
            return;
        }
        if (id.poller != null) {
            // Never destroy a CQ a poller may still touch (the machine quiesces first; this is the guard).
            LOG.log(Level.ERROR, "DestroyCq before the CQ was quiesced for " + id + "; leaking the CQ");
            giveUp(id.cq);
        } else {
            try {
                id.cq.close();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "ibv_destroy_cq failed for " + id + "; leaking the CQ", e);
                giveUp(id.cq);
            }
        }
        byCq.remove(id.cq);
        id.cq = null;
        releaseDeviceIfUnused(id);
    }

    @Override
    public void destroyCompChannel(NativeId nid) {
        VerbsId id = v(nid);
        if (id.channel == null) {
            return;
        }
        try {
            id.channel.close();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "ibv_destroy_comp_channel failed for " + id + "; leaking it", e);
            giveUp(id.channel);
        }
        id.channel = null;
        releaseDeviceIfUnused(id);
    }

    @Override
    public void destroyId(NativeId nid) {
        VerbsId id = v(nid);
        if (id.cmId.isClosed()) {
            return;
        }
        if (id.qp != null || id.cq != null || id.channel != null) {
            LOG.log(Level.ERROR, "DestroyId with native objects still open on " + id + "; leaking them and the id");
            leak(id, "destroy ordered before its QP/CQ/channel were freed");
            return;
        }
        try {
            id.cmId.close();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rdma_destroy_id failed for " + id + "; leaking the id", e);
            giveUp(id.cmId);
        }
        ids.remove(id.cmId);
    }

    @Override
    public void leak(NativeId nid, String why) {
        VerbsId id = v(nid);
        LOG.log(Level.WARNING, "leaking the native objects of " + id + ": " + why);
        if (id.qp != null) {
            byQp.remove(id.qp);
            giveUp(id.qp);
        }
        if (id.cq != null) {
            byCq.remove(id.cq);
            giveUp(id.cq);
        }
        if (id.channel != null) {
            giveUp(id.channel);
        }
        giveUp(id.cmId);
        ids.remove(id.cmId);
    }

    private void giveUp(Object o) {
        leaked.add(o);   // kept reachable: a Cleaner would only log it, but a leak is reported once, here
    }

    @Override
    public CmTuning deviceLimits(NativeId nid) {
        VerbsId id = v(nid);
        DeviceContext ctx;
        try {
            ctx = id.cmId.context();
        } catch (IllegalStateException unbound) {
            return null;
        }
        return limitsByContext.computeIfAbsent(ctx.handle(), h -> {
            DeviceAttributes a = ctx.query();
            return new CmTuning(Math.min(255, a.maxQpRdAtom()), Math.min(255, a.maxQpInitRdAtom()), 7, 7);
        });
    }

    @Override
    public Transport transport(NativeId nid) {
        try {
            return v(nid).cmId.context().isIwarp() ? Transport.IWARP : Transport.ROCE;
        } catch (IllegalStateException unbound) {
            return defaultTransport();
        }
    }

    @Override
    public Transport defaultTransport() {
        try (CmDevices all = CmDevices.open()) {
            boolean anyDevice = !all.contexts().isEmpty();
            boolean allIwarp = all.contexts().stream().allMatch(DeviceContext::isIwarp);
            return anyDevice && allIwarp ? Transport.IWARP : Transport.ROCE;
        } catch (RuntimeException e) {
            return Transport.ROCE;
        }
    }

    @Override
    public InetSocketAddress localAddress(NativeId id) {
        return v(id).cmId.localAddress();
    }

    @Override
    public InetSocketAddress peerAddress(NativeId id) {
        return v(id).cmId.peerAddress();
    }

    @Override
    public void close() {
        for (CompletionPoller p : pollers) {
            p.stop();
        }
        for (VerbsId id : List.copyOf(ids.values())) {
            LOG.log(Level.WARNING, "RdmaCm closing with " + id + " still open; leaking it");
            leak(id, "open when the port closed");
        }
        boolean idsLeft = !leaked.isEmpty();
        for (Device d : List.copyOf(devices.values())) {
            if (d.users == 0 || !idsLeft) {
                closeQuietly(d.pool);
                closeQuietly(d.pd);
                closeQuietly(d.snapshot);
            }
        }
        devices.clear();
        closeLingering(true);
        if (!idsLeft) {
            closeQuietly(channel);
        }
        epoll.close();
        wake.close();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.log(Level.ERROR, "closing " + c + " failed", e);
        }
    }

    private static VerbsId v(NativeId id) {
        return (VerbsId) id;
    }

    private static PortCallException failed(RdmaException e) {
        return new PortCallException(e.function(), e.errno(), e.getMessage(), e);
    }
}
