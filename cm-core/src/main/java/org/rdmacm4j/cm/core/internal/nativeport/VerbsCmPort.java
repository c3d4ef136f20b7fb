package org.rdmacm4j.cm.core.internal.nativeport;

import static org.rdmacm4j.cm.core.internal.nativeport.PortFailures.closeQuietly;
import static org.rdmacm4j.cm.core.internal.nativeport.PortFailures.failed;
import static org.rdmacm4j.cm.core.internal.nativeport.VerbsId.v;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.internal.NativePort;
import org.rdmacm4j.cm.core.internal.connection.DataPath;
import org.rdmacm4j.cm.core.internal.connection.OneSided;
import org.rdmacm4j.cm.core.internal.datagram.DatagramEnd;
import org.rdmacm4j.cm.core.internal.datagram.DatagramPath;
import org.rdmacm4j.cm.core.internal.datagram.MembershipImpl;
import org.rdmacm4j.cm.core.internal.datagram.PeerImpl;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.CompletionWatch;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.cm.CmDevices;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.sys.Epoll;
import org.rdmacm4j.verbs.sys.EventFd;

/**
 * The real {@link org.rdmacm4j.cm.core.internal.port.CmPort}: librdmacm and libibverbs through
 * {@code verbs}. One rdma_cm event channel (non-blocking), one epoll over it, a wake-up eventfd and
 * the async fd of every device in use; a shared PD per device, freed with its last QP; completion
 * pollers for the CQs.
 *
 * <p>This class is the port's face and its ids: it waits and wakes, makes, binds, resolves,
 * connects, accepts, rejects, disconnects, destroys and leaks ids, answers their addresses and
 * transport, and closes the port. The rest it hands on: {@link CmEvents} drains the events,
 * {@link QueuePairs} makes and frees QPs, CQs and channels (on {@link Devices}, polled by
 * {@link CompletionPollers}), {@link UdCalls} does SIDR and multicast; the objects of an id are
 * its {@link VerbsId}, what the port gave up on is in {@link Leaks}.
 *
 * <p>Longer than 400 lines because it is the 41 methods of {@link NativePort}: each is one native
 * call or one delegation, and moving the one-line rdma_cm calls elsewhere would only add a hop.
 *
 * <p>Threads: the dispatcher's, except {@link #wakeup()}.
 */
public final class VerbsCmPort implements NativePort {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private static final long TOKEN_CM = 1;
    private static final long TOKEN_WAKE = 2;

    private final CmEventChannel channel;
    private final Epoll epoll;
    private final EventFd wake;
    private final Map<CmId, VerbsId> ids = new IdentityHashMap<>();
    private final Leaks leaks = new Leaks();
    private final Devices devices;
    private final CompletionPollers pollers;
    private final QueuePairs queuePairs;
    private final CmEvents events;
    private final DeviceLoss deviceLoss = new DeviceLoss();
    /**
     * {@link #holdsAnythingOn}, made once with the port: a bound method reference made in
     * {@link #drainEvents} would be a native VM call every dispatcher turn under C1 (docs/benchmarks.md,
     * "Capturing lambdas under C1").
     */
    private final LongPredicate holdsAnything = this::holdsAnythingOn;
    private EventSink sink;

    private VerbsCmPort(int pollerThreads, String name, boolean prelink, Runnable warmUp, long spareCqIdleNanos) {
        this.channel = CmEventChannel.create();
        if (prelink) {
            // After the first native call succeeded (RDMA is usable here), before the rest of open():
            // the linker's head start is open() and listen(), which themselves link other functions.
            Prelinker.startOnce(warmUp);
        }
        channel.setNonBlocking(true);
        this.epoll = Epoll.create(64);
        this.wake = EventFd.create();
        epoll.add(channel.fd(), TOKEN_CM);
        epoll.add(wake.fd(), TOKEN_WAKE);
        this.devices = new Devices(epoll, ids, new SpareTrim(spareCqIdleNanos));
        this.pollers = new CompletionPollers(pollerThreads, name);
        this.queuePairs = new QueuePairs(pollers, devices, leaks);
        this.events = new CmEvents(channel, ids, devices, queuePairs, deviceLoss);
    }

    /**
     * Opens the event channel, epoll and pollers, and unless {@code prelink} is false starts the
     * process's {@link Prelinker}, which runs {@code warmUp} (if not null) once it has linked. The
     * spare CQs a burst leaves beyond the steady number go once the spares have been left alone for
     * {@code spareCqIdleNanos} ({@link SpareTrim}). Throws IllegalStateException if librdmacm is missing.
     */
    public static VerbsCmPort open(int pollerThreads, String name, boolean prelink, Runnable warmUp,
                                   long spareCqIdleNanos) {
        return new VerbsCmPort(pollerThreads, name, prelink, warmUp, spareCqIdleNanos);
    }

    // ------------------------------------------------------------------ waiting and events

    /**
     * What the last {@link #await} found ready (dispatcher thread): {@link #drainEvents} reads only
     * those descriptors, so a turn makes no read that can only answer EAGAIN (the eventfd on every
     * turn, the event channel and each device's async fd on turns woken by something else). Safe
     * because the epoll is level-triggered and the loop awaits before every drain: whatever is
     * still unread, or arrives after the wait, is reported by the next epoll_wait.
     */
    private boolean wakeReady;
    private boolean cmReady;
    private boolean asyncReady;

    @Override
    public void await(long timeoutNanos) {
        if (devices.spareTrim.hasSurplus()) {   // wake when a burst's spare CQs are due to go
            timeoutNanos = devices.spareTrim.boundWait(System.nanoTime(), timeoutNanos);
        }
        long ms = timeoutNanos <= 0 ? 0 : Math.max(1, (timeoutNanos + 999_999) / 1_000_000);
        int n = epoll.await(ms);
        boolean w = false;
        boolean c = false;
        boolean a = false;
        for (int i = 0; i < n; i++) {
            long token = epoll.token(i);
            if (token == TOKEN_WAKE) {
                w = true;
            } else if (token == TOKEN_CM) {
                c = true;
            } else {
                a = true;   // a device's async fd (tokens from 100 up)
            }
        }
        wakeReady = w;
        cmReady = c;
        asyncReady = a;
    }

    @Override
    public void wakeup() {
        wake.signal();
    }

    @Override
    public void drainEvents(EventSink s) {
        this.sink = s;
        if (wakeReady) {
            wakeReady = false;
            wake.drain();
        }
        events.drain(s, cmReady, asyncReady);
        cmReady = false;
        asyncReady = false;
        long now = System.nanoTime();
        deviceLoss.tick(now, holdsAnything);
        if (devices.spareTrim.due(now)) {
            devices.trimSpares(SpareTrim.BATCH);
        }
    }

    /**
     * True while a device context still has our PD, pool or a bound id on it (DeviceLoss). A leaked
     * QP, CQ or channel keeps its device's user count, so its Device stays held too.
     */
    private boolean holdsAnythingOn(long contextHandle) {
        if (devices.holds(contextHandle)) {
            return true;
        }
        for (VerbsId id : ids.values()) {
            if (id.boundTo(contextHandle)) {
                return true;
            }
        }
        return false;
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
        if (deviceLoss.noDeviceListed()) {
            throw DeviceLoss.noDevice("rdma_create_id");
        }
        try {
            CmId cmId = channel.createId(portSpace);
            VerbsId id = new VerbsId(cmId);
            id.enter(ids);
            return id;
        } catch (RdmaException e) {
            throw failed(e);
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

    /** The application's private data, preceded by our message-channel offer if the id has a channel. */
    private static Bytes withOffer(VerbsId id, Bytes privateData) {
        return id.dataPath == null ? privateData : id.dataPath.offer().prependTo(privateData);
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
        QueuePairs.markClosing(v(id));
        try {
            v(id).cmId.disconnect();
        } catch (RdmaException e) {
            // EINVAL when the CM already ended the connection: expected on crossing disconnects.
            LOG.log(Level.DEBUG, "rdma_disconnect: " + e.getMessage());
        }
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
        devices.beforeDestroy(id);
        try {
            id.cmId.close();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rdma_destroy_id failed for " + id + "; leaking the id", e);
            leaks.giveUp(id.cmId);
        }
        id.leave(ids);
    }

    @Override
    public void leak(NativeId nid, String why) {
        VerbsId id = v(nid);
        LOG.log(Level.WARNING, "leaking the native objects of " + id + ": " + why);
        queuePairs.leak(id);
        leaks.giveUp(id.cmId);
        id.leave(ids);
    }

    @Override
    public CmTuning deviceLimits(NativeId nid) {
        return devices.limits(v(nid));
    }

    @Override
    public Transport transport(NativeId nid) {
        try {
            return devices.isIwarp(v(nid)) ? Transport.IWARP : Transport.ROCE;
        } catch (IllegalStateException unbound) {
            return defaultTransport();
        }
    }

    @Override
    public Transport defaultTransport() {
        if (deviceLoss.noDeviceListed()) {
            return Transport.ROCE;   // rdma_get_devices would only fail (and it re-enters ucma_init)
        }
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

    // ------------------------------------------------------------------ queue pairs and completions

    @Override
    public void createQp(NativeId nid, QpCapabilities asked, org.rdmacm4j.cm.core.MessagingOptions messaging) {
        queuePairs.createQp(nid, asked, messaging);
    }

    @Override
    public DatagramPath createUdQp(NativeId nid, org.rdmacm4j.cm.core.DatagramOptions options) {
        return queuePairs.createUdQp(nid, options);
    }

    @Override
    public boolean startKeepalive(NativeId nid, org.rdmacm4j.cm.core.KeepaliveOptions options,
                                  Keepalive.Verdict verdict) {
        return pollers.startKeepalive(nid, options, verdict);
    }

    @Override
    public OneSided oneSided(NativeId id) {
        return v(id).oneSided;
    }

    @Override
    public DataPath dataPath(NativeId id) {
        return v(id).dataPath;
    }

    @Override
    public void rawCompletions(NativeId id, CompletionSink sink) {
        v(id).rawSink = sink;
    }

    @Override
    public org.rdmacm4j.cm.core.RawQueuePair raw(NativeId nid) {
        return queuePairs.raw(nid);
    }

    @Override
    public CompletionWatch completionWatch(NativeId nid) {
        return queuePairs.completionWatch(nid);
    }

    @Override
    public void drainQp(NativeId nid, Runnable drained) {
        queuePairs.drainQp(nid, drained);
    }

    @Override
    public void quiesceCq(NativeId nid, Runnable quiesced) {
        pollers.quiesceCq(nid, quiesced);
    }

    @Override
    public void destroyQp(NativeId nid) {
        queuePairs.destroyQp(nid);
    }

    @Override
    public void destroyCq(NativeId nid) {
        queuePairs.destroyCq(nid);
    }

    @Override
    public void destroyCompChannel(NativeId nid) {
        queuePairs.destroyCompChannel(nid);
    }

    // ------------------------------------------------------------------ datagrams

    @Override
    public void acceptSidr(NativeId nid, Bytes privateData, int qpNum) {
        UdCalls.acceptSidr(nid, privateData, qpNum);
    }

    @Override
    public void joinMulticast(NativeId nid, String group, boolean sendOnly) {
        UdCalls.joinMulticast(nid, group, sendOnly);
    }

    @Override
    public void leaveMulticast(NativeId nid, String group) {
        UdCalls.leaveMulticast(nid, group);
    }

    @Override
    public PeerImpl peer(NativeId nid, DatagramPath path, InetSocketAddress address) {
        return UdCalls.peer(nid, path, address);
    }

    @Override
    public MembershipImpl membership(NativeId nid, String group, DatagramPath path, DatagramEnd endpoint,
                                     org.rdmacm4j.cm.core.JoinOptions options) {
        return UdCalls.membership(nid, group, path, endpoint, options);
    }

    // ------------------------------------------------------------------ closing

    @Override
    public void close() {
        pollers.stop();
        for (VerbsId id : List.copyOf(ids.values())) {
            LOG.log(Level.WARNING, "RdmaCm closing with " + id + " still open; leaking it");
            leak(id, "open when the port closed");
        }
        boolean idsLeft = !leaks.isEmpty();
        devices.close(idsLeft);
        if (!idsLeft) {
            closeQuietly(channel);
        }
        epoll.close();
        wake.close();
    }
}
