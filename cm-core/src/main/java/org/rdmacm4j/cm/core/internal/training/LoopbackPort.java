package org.rdmacm4j.cm.core.internal.training;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.internal.NativePort;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Transport;

/**
 * An in-memory {@link NativePort} whose ids connect to each other: what the cold-start training
 * drives the real dispatcher with where there is no RDMA device. Every call answers as a healthy
 * soft-RoCE device would, through the same event queue the dispatcher drains: resolveAddr and
 * resolveRoute queue their RESOLVED events, connect to an address a listener of this port is bound
 * to queues a CONNECT_REQUEST on that listener (an ECONNREFUSED-like REJECTED otherwise), accept
 * queues ESTABLISHED on both ends, disconnect queues DISCONNECTED on both (once each), and drains
 * and quiesces answer at once. Raw and messaging-less connections only: it has no data path.
 *
 * <p>Threads: the dispatcher thread calls everything but {@link #wakeup}, which any thread may; the
 * event queue and the wake-up flag are the {@link EventQueue}'s, the ids' fields are the
 * dispatcher's alone.
 */
public final class LoopbackPort implements NativePort {
    private static final CmTuning DEVICE_LIMITS = new CmTuning(16, 16, 7, 7);
    /** The loopback listener's "device" picks ephemeral local ports from here. */
    private static final int FIRST_EPHEMERAL = 40_000;

    /** One id of this port: its addresses and the other end once paired. */
    private static final class LoopId extends NativeId {
        InetSocketAddress local;
        InetSocketAddress remote;
        LoopId peer;
        boolean disconnected;
        boolean destroyed;
    }

    private final EventQueue<Runnable> pending = new EventQueue<>();   // any thread adds; run by drainEvents
    private final Map<InetSocketAddress, LoopId> listeners = new HashMap<>();   // dispatcher thread
    private EventSink sink;                                            // set by drainEvents, dispatcher thread
    private int nextPort = FIRST_EPHEMERAL;                            // dispatcher thread
    private volatile int ids;                                          // written by the dispatcher thread only: live ids
    private volatile boolean closed;

    /** Ids created and not yet destroyed: 0 after a clean close (the training checks it). */
    public int liveIds() {
        return ids;
    }

    public boolean isClosed() {
        return closed;
    }

    private void queue(LoopId id, LoopId listenId, CmEventType type, int status, EventParams params) {
        pending.add(() -> sink.cmEvent(id, listenId, type, status, params));
    }

    @Override
    public void await(long timeoutNanos) {
        pending.await(timeoutNanos, () -> { });
    }

    @Override
    public void wakeup() {
        pending.wakeup();
    }

    @Override
    public void drainEvents(EventSink eventSink) {
        this.sink = eventSink;
        for (Runnable next = pending.poll(); next != null; next = pending.poll()) {
            next.run();
        }
    }

    @Override
    public NativeId createId() {
        ids++;
        return new LoopId();
    }

    private static LoopId id(NativeId id) {
        return (LoopId) id;
    }

    @Override
    public void bind(NativeId id, InetSocketAddress address) {
        LoopId x = id(id);
        x.local = address.getPort() == 0 ? new InetSocketAddress(address.getAddress(), nextPort++) : address;
    }

    @Override
    public void listen(NativeId id, int backlog) {
        LoopId x = id(id);
        if (listeners.putIfAbsent(x.local, x) != null) {
            throw new PortCallException("rdma_listen", 98, "EADDRINUSE: " + x.local + " already listens", null);
        }
    }

    @Override
    public void resolveAddr(NativeId id, InetSocketAddress source, InetSocketAddress destination, int timeoutMs) {
        LoopId x = id(id);
        InetAddress from = source != null ? source.getAddress() : destination.getAddress();
        x.local = new InetSocketAddress(from, source != null && source.getPort() != 0 ? source.getPort() : nextPort++);
        x.remote = destination;
        queue(x, null, CmEventType.ADDR_RESOLVED, 0, new EventParams.None());
    }

    @Override
    public void resolveRoute(NativeId id, int timeoutMs) {
        queue(id(id), null, CmEventType.ROUTE_RESOLVED, 0, new EventParams.None());
    }

    @Override
    public void setTypeOfService(NativeId id, int tos) { }

    @Override
    public void setAckTimeout(NativeId id, int exponent) { }

    @Override
    public void createQp(NativeId id, QpCapabilities caps, org.rdmacm4j.cm.core.MessagingOptions messaging) { }

    @Override
    public void connect(NativeId id, Bytes privateData, CmTuning tuning) {
        LoopId active = id(id);
        LoopId listener = listeners.get(active.remote);
        if (listener == null) {
            // as a device answers a connect nobody listens for: the peer's CM rejects it
            queue(active, null, CmEventType.REJECTED, 28, EventParams.Conn.withData(Bytes.empty()));
            return;
        }
        LoopId passive = new LoopId();
        ids++;
        passive.local = active.remote;
        passive.remote = active.local;
        passive.peer = active;
        active.peer = passive;
        queue(passive, listener, CmEventType.CONNECT_REQUEST, 0, new EventParams.Conn(privateData,
                tuning.responderResources(), tuning.initiatorDepth(), 0, tuning.retryCount(),
                tuning.rnrRetryCount(), false, 1));
    }

    @Override
    public void accept(NativeId id, Bytes privateData, CmTuning tuning) {
        LoopId passive = id(id);
        queue(passive, null, CmEventType.ESTABLISHED, 0, new EventParams.None());
        if (passive.peer != null && !passive.peer.destroyed) {
            queue(passive.peer, null, CmEventType.ESTABLISHED, 0, EventParams.Conn.withData(privateData));
        }
    }

    @Override
    public void reject(NativeId id, Bytes privateData) {
        LoopId passive = id(id);
        if (passive.peer != null && !passive.peer.destroyed) {
            queue(passive.peer, null, CmEventType.REJECTED, 28, EventParams.Conn.withData(privateData));
        }
    }

    @Override
    public void notifyEstablished(NativeId id) { }

    @Override
    public void disconnect(NativeId id) {
        LoopId x = id(id);
        disconnected(x);
        if (x.peer != null) {
            disconnected(x.peer);
        }
    }

    private void disconnected(LoopId x) {
        if (!x.disconnected && !x.destroyed) {
            x.disconnected = true;
            queue(x, null, CmEventType.DISCONNECTED, 0, new EventParams.None());
        }
    }

    @Override
    public void drainQp(NativeId id, Runnable drained) {
        drained.run();
    }

    @Override
    public void quiesceCq(NativeId id, Runnable quiesced) {
        quiesced.run();
    }

    @Override
    public void destroyQp(NativeId id) { }

    @Override
    public void destroyCq(NativeId id) { }

    @Override
    public void destroyCompChannel(NativeId id) { }

    @Override
    public void destroyId(NativeId id) {
        LoopId x = id(id);
        if (!x.destroyed) {
            x.destroyed = true;
            ids--;
            listeners.remove(x.local, x);
        }
    }

    @Override
    public void leak(NativeId id, String why) {
        destroyId(id);
    }

    @Override
    public CmTuning deviceLimits(NativeId id) {
        return DEVICE_LIMITS;
    }

    @Override
    public Transport transport(NativeId id) {
        return Transport.ROCE;
    }

    @Override
    public InetSocketAddress localAddress(NativeId id) {
        return id(id).local;
    }

    @Override
    public InetSocketAddress peerAddress(NativeId id) {
        return id(id).remote;
    }

    @Override
    public void close() {
        closed = true;
    }
}
