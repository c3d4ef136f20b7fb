package org.rdmacm4j.cm.core.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.internal.connection.ConnectionEnd;
import org.rdmacm4j.cm.core.internal.datagram.DatagramEnd;
import org.rdmacm4j.cm.core.internal.datagram.DatagramPath;
import org.rdmacm4j.cm.core.internal.datagram.MembershipImpl;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.core.internal.port.CmPort;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.core.internal.training.EventQueue;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Transport;

/**
 * A scripted, inspectable {@link CmPort} for host tests: records every call in order, fails a call
 * with an errno on request, queues events for the next {@link #drainEvents}, answers drain/quiesce
 * at once or when the test releases them, and blocks in {@link #await} for real (briefly).
 *
 * <p>Auto-answers (each switchable) make a connect run by itself: resolveAddr queues ADDR_RESOLVED,
 * resolveRoute queues ROUTE_RESOLVED, connect queues ESTABLISHED (with {@link #acceptData}),
 * accept queues ESTABLISHED, and disconnect queues the peer's DISCONNECTED (once per id).
 */
public final class FakeCmPort implements NativePort {

    /** A native id of the fake: a number, and which objects exist on it. */
    public static final class FakeId extends NativeId {
        public final int number;
        public final boolean fromRequest;
        volatile boolean qp;
        volatile boolean cq;
        volatile boolean channel;
        volatile boolean destroyed;
        volatile boolean leaked;
        volatile boolean disconnectedQueued;
        volatile boolean quiesced;
        volatile CmTuning acceptTuning;
        volatile CmTuning connectTuning;
        volatile Bytes acceptData;
        volatile Bytes connectData;
        volatile Bytes rejectData;

        FakeId(int number, boolean fromRequest) {
            this.number = number;
            this.fromRequest = fromRequest;
        }

        public boolean hasQp() { return qp; }
        public boolean hasCq() { return cq; }
        public boolean hasChannel() { return channel; }
        public boolean destroyed() { return destroyed; }
        public boolean leaked() { return leaked; }
        public CmTuning acceptTuning() { return acceptTuning; }
        public CmTuning connectTuning() { return connectTuning; }
        public Bytes acceptData() { return acceptData; }
        public Bytes connectData() { return connectData; }
        public Bytes rejectData() { return rejectData; }

        @Override
        public String toString() {
            return "id" + number;
        }
    }

    /** One recorded port call. */
    public record Call(String name, FakeId id, Object arg, String thread) {
        @Override
        public String toString() {
            return name + (id == null ? "" : "(" + id + ")");
        }
    }

    private interface Event {
        void deliver(EventSink sink);
    }

    private final Object lock = new Object();
    private final List<Call> calls = new ArrayList<>();                       // guarded by lock
    private final EventQueue<Event> events = new EventQueue<>();              // its own monitor: the loop's wait
    private final Map<String, ArrayDeque<RuntimeException>> failures = new HashMap<>();   // guarded by lock
    private final Map<String, Consumer<FakeId>> hooks = new HashMap<>();      // guarded by lock
    private final List<Runnable> heldDrains = new ArrayList<>();              // guarded by lock
    private final List<Runnable> heldQuiesces = new ArrayList<>();            // guarded by lock
    private final List<FakeId> ids = new ArrayList<>();                       // guarded by lock
    private final List<String> violations = new ArrayList<>();                // guarded by lock
    private final AtomicInteger numbers = new AtomicInteger();
    /** How many times the dispatcher went idle (entered an await that would block); see awaitIdle. */
    private final java.util.concurrent.atomic.AtomicLong awaits = new java.util.concurrent.atomic.AtomicLong();

    public volatile boolean autoResolve = true;
    public volatile boolean autoEstablish = true;
    public volatile boolean autoDisconnect = true;
    public volatile boolean holdDrain;
    public volatile boolean holdQuiesce;
    /** The private data the passive side "accepted" with (what ESTABLISHED carries on the active side). */
    public volatile Bytes acceptData = Bytes.empty();
    public volatile CmTuning deviceLimits = new CmTuning(16, 16, 7, 7);
    public volatile InetSocketAddress local = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000);
    public volatile InetSocketAddress peer = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);
    /** The longest real wait of one await (keeps tests responsive even with a stuck fake clock). */
    public volatile long maxAwaitNanos = TimeUnit.MILLISECONDS.toNanos(20);
    private volatile boolean closed;
    /** Thrown by the next drainEvents (kills the dispatcher loop: a bug outside any one id). */
    public volatile RuntimeException drainFailure;

    // ------------------------------------------------------------------ scripting

    /** The next {@code call} (e.g. "createQp") throws PortCallException with {@code errno}. */
    public void failNext(String call, int errno) {
        failNextWith(call, new PortCallException(nativeName(call), errno, "errno " + errno, null));
    }

    /** The next {@code call} throws {@code e} (a PortCallException, or a bug's RuntimeException). */
    public void failNextWith(String call, RuntimeException e) {
        synchronized (lock) {
            failures.computeIfAbsent(call, k -> new ArrayDeque<>()).add(e);
        }
    }

    /** The hook {@link #onCall} set for {@code call}, or null. */
    public Consumer<FakeId> hookFor(String call) {
        synchronized (lock) {
            return hooks.get(call);
        }
    }

    /** Runs {@code hook} inside every later {@code call} (on the dispatcher thread), after recording it. */
    public void onCall(String call, Consumer<FakeId> hook) {
        synchronized (lock) {
            if (hook == null) {
                hooks.remove(call);
            } else {
                hooks.put(call, hook);
            }
        }
    }

    public void cmEvent(FakeId id, CmEventType type, int status, EventParams params) {
        queue(sink -> sink.cmEvent(id, null, type, status, params));
    }

    public void cmEvent(FakeId id, CmEventType type) {
        cmEvent(id, type, 0, new EventParams.None());
    }

    /** A CONNECT_REQUEST on {@code listener}: returns the new id librdmacm "created" for it. */
    public FakeId connectRequest(FakeId listener, EventParams params) {
        FakeId nid = newId(true);
        queue(sink -> sink.cmEvent(nid, listener, CmEventType.CONNECT_REQUEST, 0, params));
        return nid;
    }

    public void asyncEvent(FakeId id, AsyncEventType type, int portNumber) {
        queue(sink -> sink.asyncEvent(id, type, portNumber));
    }

    private void queue(Event e) {
        events.add(e);
    }

    /** Answers every held drainQp; returns how many. */
    public int releaseDrains() {
        List<Runnable> r;
        synchronized (lock) {
            r = new ArrayList<>(heldDrains);
            heldDrains.clear();
        }
        r.forEach(Runnable::run);
        return r.size();
    }

    /** Answers every held quiesceCq; returns how many. */
    public int releaseQuiesces() {
        List<Runnable> r;
        synchronized (lock) {
            r = new ArrayList<>(heldQuiesces);
            heldQuiesces.clear();
        }
        r.forEach(Runnable::run);
        return r.size();
    }

    public int heldQuiesceCount() {
        synchronized (lock) {
            return heldQuiesces.size();
        }
    }

    // ------------------------------------------------------------------ inspection

    public List<Call> calls() {
        synchronized (lock) {
            return List.copyOf(calls);
        }
    }

    /** The names of every call, in order. */
    public List<String> names() {
        return calls().stream().map(Call::name).toList();
    }

    /** The names of the calls on {@code id}, in order. */
    public List<String> names(FakeId id) {
        return calls().stream().filter(c -> c.id() == id).map(Call::name).toList();
    }

    public int count(String name) {
        return (int) calls().stream().filter(c -> c.name().equals(name)).count();
    }

    public List<FakeId> ids() {
        synchronized (lock) {
            return List.copyOf(ids);
        }
    }

    /** Ids neither destroyed nor leaked. */
    public List<FakeId> liveIds() {
        return ids().stream().filter(i -> !i.destroyed && !i.leaked).toList();
    }

    public boolean isClosed() {
        return closed;
    }

    /** Contract breaches seen: a call on a destroyed id, a second destroyId, QP/CQ destroyed before quiesce. */
    public List<String> violations() {
        synchronized (lock) {
            return List.copyOf(violations);
        }
    }

    /** Waits (bounded) until the {@code nth} (1-based) call named {@code name} was made; returns it. */
    public Call awaitCall(String name, int nth) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        synchronized (lock) {
            while (true) {
                int seen = 0;
                for (Call c : calls) {
                    if (c.name().equals(name) && ++seen == nth) {
                        return c;
                    }
                }
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no call #" + nth + " of " + name + " within 5 s; calls: " + calls);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }
    }

    public Call awaitCall(String name) {
        return awaitCall(name, 1);
    }

    /** Waits (bounded) until {@code id} had a call named {@code name}. */
    public void awaitCallOn(FakeId id, String name) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        synchronized (lock) {
            while (calls.stream().noneMatch(c -> c.id() == id && c.name().equals(name))) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no " + name + " on " + id + " within 5 s; calls: " + calls);
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
        }
    }

    // ------------------------------------------------------------------ CmPort

    private void record(String name, FakeId id, Object arg) {
        RuntimeException fail;
        Consumer<FakeId> hook;
        synchronized (lock) {
            if (id != null && (id.destroyed || id.leaked) && !name.equals("quiesced")) {
                violations.add(name + " on " + id + " after it was destroyed or leaked");
            }
            if (id != null && (name.equals("destroyQp") || name.equals("destroyCq")) && id.cq && !id.quiesced) {
                violations.add(name + " on " + id + " before its CQ was quiesced");
            }
            calls.add(new Call(name, id, arg, Thread.currentThread().getName()));
            lock.notifyAll();
            ArrayDeque<RuntimeException> q = failures.get(name);
            fail = q == null ? null : q.poll();
            hook = hooks.get(name);
        }
        if (hook != null) {
            hook.accept(id);
        }
        if (fail != null) {
            throw fail;
        }
    }

    private FakeId newId(boolean fromRequest) {
        FakeId id = new FakeId(numbers.incrementAndGet(), fromRequest);
        synchronized (lock) {
            ids.add(id);
        }
        return id;
    }

    private static FakeId f(NativeId id) {
        return (FakeId) id;
    }

    /**
     * Waits (bounded) until the dispatcher went back to {@link #await} after whatever it was doing:
     * every step started before this call (and the timers it armed) is done.
     */
    public void awaitIdle() {
        long start = awaits.get();
        wakeup();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (awaits.get() <= start) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the dispatcher did not come back to await within 5 s");
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void await(long timeoutNanos) {
        // Idle only if it is about to block: not with events or a wake-up pending, nor when the
        // dispatcher asked for no wait (tasks still queued, a timer due). An await entered
        // mid-burst must not let awaitIdle return before the events just queued are stepped.
        events.await(Math.min(Math.max(0, timeoutNanos), maxAwaitNanos), awaits::incrementAndGet);
    }

    /** Calls of {@link #wakeup} (by the loop and by tests): each is an eventfd write on the real port. */
    public final java.util.concurrent.atomic.AtomicLong wakeups = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public void wakeup() {
        wakeups.incrementAndGet();
        events.wakeup();
    }

    @Override
    public void drainEvents(EventSink sink) {
        RuntimeException die = drainFailure;
        if (die != null) {
            drainFailure = null;
            throw die;
        }
        for (Event e = events.poll(); e != null; e = events.poll()) {
            e.deliver(sink);
        }
    }

    @Override
    public NativeId createId() {
        FakeId id = newId(false);
        try {
            record("createId", id, null);
        } catch (RuntimeException e) {
            id.destroyed = true;   // never existed
            throw e;
        }
        return id;
    }

    // ------------------------------------------------------------------ UD (datagram endpoints)

    /** Joins answer MULTICAST_JOIN at once (EventParams.Ud.forGroup). */
    public volatile boolean autoJoin = true;

    @Override
    public NativeId createUdId() {
        FakeId id = newId(false);
        try {
            record("createUdId", id, null);
        } catch (RuntimeException e) {
            id.destroyed = true;
            throw e;
        }
        return id;
    }

    @Override
    public DatagramPath createUdQp(NativeId id, org.rdmacm4j.cm.core.DatagramOptions options) {
        FakeId x = f(id);
        record("createUdQp", x, options);
        x.qp = true;
        x.cq = true;
        x.channel = true;
        return DatagramPath.detached(0x100 + x.number, 1024);
    }

    @Override
    public void acceptSidr(NativeId id, Bytes privateData, int qpNum) {
        record("acceptSidr", f(id), qpNum);
    }

    /** Recorded with the group as argument, and " send-only" after it for a send-only join. */
    @Override
    public void joinMulticast(NativeId id, String group, boolean sendOnly) {
        FakeId x = f(id);
        record("joinMulticast", x, group + (sendOnly ? " send-only" : ""));
        if (autoJoin) {
            cmEvent(x, CmEventType.MULTICAST_JOIN, 0, EventParams.Ud.forGroup(group));
        }
    }

    @Override
    public void leaveMulticast(NativeId id, String group) {
        record("leaveMulticast", f(id), group);
    }

    @Override
    public MembershipImpl membership(NativeId id, String group, DatagramPath path, DatagramEnd endpoint,
                                     org.rdmacm4j.cm.core.JoinOptions options) {
        record("membership", f(id), group);
        try {
            return new MembershipImpl(null, path.targets, endpoint, InetAddress.getByName(group), options, 0xFFFFFF,
                    0x01234567);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void bind(NativeId id, InetSocketAddress address) {
        record("bind", f(id), address);
    }

    @Override
    public void listen(NativeId id, int backlog) {
        record("listen", f(id), backlog);
    }

    @Override
    public void resolveAddr(NativeId id, InetSocketAddress source, InetSocketAddress destination, int timeoutMs) {
        record("resolveAddr", f(id), destination);
        if (autoResolve) {
            cmEvent(f(id), CmEventType.ADDR_RESOLVED);
        }
    }

    @Override
    public void resolveRoute(NativeId id, int timeoutMs) {
        record("resolveRoute", f(id), timeoutMs);
        if (autoResolve) {
            cmEvent(f(id), CmEventType.ROUTE_RESOLVED);
        }
    }

    @Override
    public void setTypeOfService(NativeId id, int tos) {
        record("setTypeOfService", f(id), tos);
    }

    @Override
    public void setAckTimeout(NativeId id, int exponent) {
        record("setAckTimeout", f(id), exponent);
    }

    @Override
    public void createQp(NativeId id, QpCapabilities caps, org.rdmacm4j.cm.core.MessagingOptions messaging) {
        record("createQp", f(id), caps);
        FakeId x = f(id);
        x.qp = true;
        x.cq = true;
        x.channel = true;
    }

    private final Map<FakeId, Keepalive.Verdict> keepalives = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public boolean startKeepalive(NativeId id, org.rdmacm4j.cm.core.KeepaliveOptions options,
                                  Keepalive.Verdict verdict) {
        record("startKeepalive", f(id), options);
        keepalives.put(f(id), verdict);
        return true;
    }

    /** What the poller does when a keepalive gives up: the verdict, on this (a non-dispatcher) thread. */
    /** How long the dispatcher waits for an explanation of an unexplained flush. */
    public static final java.time.Duration FLUSH_GRACE = java.time.Duration.ofNanos(Dispatcher.FLUSH_GRACE_NANOS);

    /** What the message channel reports when the QP's receives flush and no teardown of ours explains it. */
    public static void receivesFlushed(org.rdmacm4j.cm.core.RdmaConnection c) {
        ((ConnectionEnd) c).queuePairFlushed(org.rdmacm4j.verbs.ibv.WcStatus.WR_FLUSH_ERR);
    }

    public void keepaliveGivesUp(FakeId id) {
        Keepalive.Verdict v = keepalives.get(id);
        if (v == null) {
            throw new AssertionError("no keepalive was started on " + id);
        }
        v.peerUnresponsive("no answer to a keepalive probe for 3 period(s) of 100 ms", null);
    }

    @Override
    public void connect(NativeId id, Bytes privateData, org.rdmacm4j.cm.statemachine.CmTuning tuning) {
        FakeId x = f(id);
        x.connectData = privateData;
        x.connectTuning = tuning;
        record("connect", x, privateData);
        if (autoEstablish) {
            cmEvent(x, CmEventType.ESTABLISHED, 0, EventParams.Conn.withData(acceptData));
        }
    }

    @Override
    public void accept(NativeId id, Bytes privateData, CmTuning tuning) {
        FakeId x = f(id);
        x.acceptData = privateData;
        x.acceptTuning = tuning;
        record("accept", x, tuning);
        if (autoEstablish) {
            cmEvent(x, CmEventType.ESTABLISHED, 0, new EventParams.None());
        }
    }

    @Override
    public void reject(NativeId id, Bytes privateData) {
        f(id).rejectData = privateData;
        record("reject", f(id), privateData);
    }

    @Override
    public void notifyEstablished(NativeId id) {
        record("notifyEstablished", f(id), null);
    }

    @Override
    public void disconnect(NativeId id) {
        FakeId x = f(id);
        record("disconnect", x, null);
        if (autoDisconnect && !x.disconnectedQueued) {
            x.disconnectedQueued = true;
            cmEvent(x, CmEventType.DISCONNECTED);
        }
    }

    @Override
    public void drainQp(NativeId id, Runnable drained) {
        record("drainQp", f(id), null);
        if (holdDrain) {
            synchronized (lock) {
                heldDrains.add(drained);
            }
        } else {
            drained.run();
        }
    }

    @Override
    public void quiesceCq(NativeId id, Runnable quiesced) {
        record("quiesceCq", f(id), null);
        if (holdQuiesce && f(id).cq) {
            synchronized (lock) {
                heldQuiesces.add(() -> {
                    record("quiesced", f(id), null);
                    f(id).quiesced = true;
                    quiesced.run();
                });
            }
        } else {
            record("quiesced", f(id), null);
            f(id).quiesced = true;
            quiesced.run();
        }
    }

    @Override
    public void destroyQp(NativeId id) {
        record("destroyQp", f(id), null);
        f(id).qp = false;
    }

    @Override
    public void destroyCq(NativeId id) {
        record("destroyCq", f(id), null);
        f(id).cq = false;
    }

    @Override
    public void destroyCompChannel(NativeId id) {
        record("destroyCompChannel", f(id), null);
        f(id).channel = false;
    }

    /** As the real port: an id destroyed with its QP, CQ or channel still open is leaked with them. */
    @Override
    public void destroyId(NativeId id) {
        FakeId x = f(id);
        record("destroyId", x, null);
        if (x.qp || x.cq || x.channel) {
            x.leaked = true;
        } else {
            x.destroyed = true;
        }
    }

    @Override
    public void leak(NativeId id, String why) {
        record("leak", f(id), why);
        f(id).leaked = true;
    }

    @Override
    public CmTuning deviceLimits(NativeId id) {
        return deviceLimits;
    }

    @Override
    public Transport transport(NativeId id) {
        return Transport.ROCE;
    }

    /**
     * Runs inside every localAddress call (on the dispatcher: the connection's addresses are read in
     * the step that delivers an established connection, before its future is settled), unrecorded.
     */
    public volatile Runnable onLocalAddress = () -> { };

    @Override
    public InetSocketAddress localAddress(NativeId id) {
        onLocalAddress.run();
        return local;
    }

    @Override
    public InetSocketAddress peerAddress(NativeId id) {
        return peer;
    }

    @Override
    public void close() {
        record("close", null, null);
        closed = true;
    }

    private static String nativeName(String call) {
        return switch (call) {
            case "createId", "createUdId" -> "rdma_create_id";
            case "bind" -> "rdma_bind_addr";
            case "listen" -> "rdma_listen";
            case "resolveAddr" -> "rdma_resolve_addr";
            case "resolveRoute" -> "rdma_resolve_route";
            case "createQp" -> "rdma_create_qp";
            case "connect" -> "rdma_connect";
            case "accept" -> "rdma_accept";
            case "setTypeOfService", "setAckTimeout" -> "rdma_set_option";
            default -> call;
        };
    }
}
