package org.rdmacm4j.cm.core.internal;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.CmStatistics;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectTimeoutException;
import org.rdmacm4j.cm.core.DeviceRemovedException;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestHandler;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.MachineState;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.machine.ActiveConnectionMachine;
import org.rdmacm4j.cm.statemachine.machine.ActiveState;
import org.rdmacm4j.cm.statemachine.machine.ListenerMachine;
import org.rdmacm4j.cm.statemachine.machine.ListenerState;
import org.rdmacm4j.cm.statemachine.machine.PassiveConnectionMachine;
import org.rdmacm4j.cm.statemachine.machine.UdMachine;
import org.rdmacm4j.cm.statemachine.machine.UdState;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * The CM dispatcher: one thread per RdmaCm that owns every rdma_cm_id and every native control
 * call. Each wake-up it drains the port's events (rdma_cm and verbs async, already copied and
 * acked), runs the commands user threads queued, and fires due timers; each of those becomes one
 * input to one id's state machine, whose actions it runs in order with the CallFailed contract.
 *
 * <p>Threads: methods named as API entry points ({@link #connect}, {@link #listen}, {@link #accept},
 * {@link #reject}, {@link #closeCommand}, {@link #shutdown}, {@link #statistics}) may be called from
 * any thread and only queue work; everything else runs on the dispatcher thread. Nothing here
 * blocks on the application: futures are completed and handlers called through each id's
 * {@link SerialExecutor} on the callback executor.
 */
public final class Dispatcher implements CmPort.EventSink {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** The longest epoll wait: bounds how late a stop request is seen even if wakeup were lost. */
    private static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /**
     * How long an unexplained flush waits for an explanation before it is a failure: an event that
     * was already on its way when the poller saw the flush (a DEVICE_REMOVAL, a QP async event, a
     * close) is drained and stepped well within it, even on TCG.
     */
    /**
     * The most user/API tasks run per loop turn, between two reads of the CM events and poller
     * answers. Small enough that the first connect of a burst is not held up by the burst; large
     * enough that a quiet dispatcher still runs a batch per wake-up. 64, not 16: in one guest boot
     * (benchmarks/run-compare.sh, cmtime twin N = 500 pipelined, 2 reps each) 16 gave 88 and 69
     * connects/s, 64 gave 98 and 102 (each turn costs an epoll_wait and an event read).
     */
    static final int TASKS_PER_TURN = 64;

    static final long FLUSH_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /** Tunables of one dispatcher (from RdmaCm.Builder). */
    public record Config(int historySize, Transport defaultTransport, Duration listenTimeout) { }

    /** A queued unit of work and the future that must fail if it can never run. */
    private record Task(Runnable work, CompletableFuture<?> owner) { }

    private final CmPort port;
    private final Executor callbackBase;
    private final LongSupplier clock;
    private final Config config;
    private final Stats stats = new Stats();
    private final TimerQueue timers = new TimerQueue();
    /** The gates of the step barriers in use (weak: a barrier nobody holds any more goes away). Dispatcher thread. */
    private final Map<org.rdmacm4j.cm.core.StepBarrier, LockstepGate> gates = new java.util.WeakHashMap<>();
    private final ArrayDeque<Task> tasks = new ArrayDeque<>();   // guarded by itself
    /**
     * Answers from the completion pollers (a QP drained, a CQ quiesced, a flush to judge): they carry
     * deadlines of their own (the machine's quiesce timer), so they never wait behind user tasks;
     * so do the application's accepts of requests already offered (the listener's decision deadline).
     * drained in full every loop turn, before timers. Guarded by {@link #tasks}, like the door.
     */
    private final ArrayDeque<Task> answers = new ArrayDeque<>();
    /** The owner of answers that owe no future (one per dispatcher, not one per answer): nobody reads it. */
    private final CompletableFuture<Void> noOwner = new CompletableFuture<>();
    private final Set<IdDriver> live = new LinkedHashSet<>();
    private final Map<Long, NativeId> offered = new HashMap<>();
    /** An input for another id produced while an id's actions ran; fed once that step is done. */
    private record Deferred(IdDriver driver, Input input) { }

    private final ArrayDeque<Deferred> deferred = new ArrayDeque<>();
    private final LibraryThread thread;
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    private boolean accepting = true;      // guarded by tasks
    private volatile boolean stopRequested;
    private volatile Throwable broken;
    private boolean feeding;
    /**
     * The dispatcher's "now" for the work of the current loop turn (dispatcher thread): read when
     * the turn starts (after the wait) and again once its user tasks ran, then used for every step,
     * history entry, due-timer check and the next wait. In the QEMU/TCG guest a clock read can be
     * a clock_gettime syscall, and a connection's steps read it dozens of times otherwise.
     * <p>A deadline, though, never starts from a stale read: every timer is armed on a fresh read
     * (which also advances turnNanos). A turn is not always short: in a one-vCPU TCG guest a cold
     * JVM took over a second for one turn, and a QUIESCE_DEADLINE armed from the turn's start fired
     * before the poller could answer, so the QP and CQ leaked (two-host CI run, 2026-11-23).
     */
    private long turnNanos;

    /** Reads the clock now, for a deadline about to start, and advances the turn clock to it. Dispatcher thread. */
    private long freshNanos() {
        turnNanos = clock.getAsLong();
        return turnNanos;
    }
    private long eventSeq;
    private long requestSeq;
    private long idSerial;

    public Dispatcher(CmPort port, Executor callbackBase, LongSupplier clock, Config config) {
        this.port = port;
        this.callbackBase = callbackBase;
        this.clock = clock;
        this.config = config;
        this.thread = new LibraryThread(this::loop, "rdmacm4j-dispatcher-" + INSTANCES.incrementAndGet());
    }

    public void start() {
        thread.start();
    }

    // ------------------------------------------------------------------ API entry points (any thread)

    /** Starts an active connect. The arguments are validated by the caller. */
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress destination, ConnectOptions options,
                                                     ConnectionHandler handler) {
        CmFuture<RdmaConnection> f = new CmFuture<>();
        long started = clock.getAsLong();
        submit(f, () -> {
            LockstepGate gate = options.stepBarrier() == null ? null
                    : gates.computeIfAbsent(options.stepBarrier(), b -> new LockstepGate(b.parties()));
            if (f.isDone()) {
                absentFromLockstep(gate);
                return;   // cancelled before it started: nothing to undo
            }
            NativeId nid;
            try {
                nid = port.createId();
            } catch (PortCallException e) {
                absentFromLockstep(gate);
                f.completeExceptionally(new ConnectionFailedException("connect to " + destination + ": "
                        + e.getMessage(), List.of(), e));
                stats.connectFailed("ConnectionFailedException");
                return;
            }
            ActiveConnectionMachine machine = new ActiveConnectionMachine(activePolicy(options));
            IdDriver d = newDriver(IdDriver.Kind.ACTIVE, machine, ActiveState.initial(), nid);
            d.lockstep = gate;
            d.lockstepDeadline = freshNanos() + options.deadlines().connect().toNanos();   // a deadline starts now
            d.source = options.source();
            d.destination = destination;
            d.qp = options.qp();
            d.messaging = options.messaging();
            d.typeOfService = options.typeOfService();
            d.ackTimeout = options.ackTimeout();
            d.keepalive = options.keepalive();
            d.connection = new ConnectionImpl(this, d, handler, started);
            d.connection.peer = destination;
            long req = ++requestSeq;
            d.owed.put(req, new IdDriver.Owed(cast(f), x -> d.connection));
            d.openRequest = req;
            f.onCancel(() -> execute(() -> feed(d, new Input.Command.Cancel())));
            stats.connectsStarted.increment();
            feed(d, new Input.Command.Connect(req, options.privateData()));
            if (f.isCancelled()) {
                feed(d, new Input.Command.Cancel());
            }
        });
        return f;
    }

    /** Creates, binds and listens on a new id; waits (bounded) for the dispatcher to do it. */
    public RdmaListener listen(InetSocketAddress address, ListenOptions options, RequestHandler handler) {
        LibraryThread.refuseBlocking("listen()");
        CompletableFuture<ListenerImpl> f = new CompletableFuture<>();
        submit(f, () -> {
            NativeId nid = null;
            try {
                nid = port.createId();
                port.bind(nid, address);
                port.listen(nid, options.backlog());
            } catch (PortCallException e) {
                if (nid != null) {
                    port.destroyId(nid);
                }
                f.completeExceptionally(new RdmaCmException("cannot listen on " + address + ": " + e.getMessage(),
                        List.of(), e));
                return;
            }
            ListenerMachine machine = new ListenerMachine(options.listenerPolicy());
            IdDriver d = newDriver(IdDriver.Kind.LISTENER, machine, ListenerState.listening(), nid);
            ListenerImpl l = new ListenerImpl(this, d, handler, options);
            l.local = port.localAddress(nid);
            d.listener = l;
            f.complete(l);
        });
        try {
            return f.get(config.listenTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new RdmaCmException("cannot listen on " + address, List.of(), e.getCause());
        } catch (TimeoutException e) {
            throw new RdmaCmException("listen on " + address + ": the dispatcher did not answer within "
                    + config.listenTimeout(), List.of(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaCmException("listen on " + address + " interrupted", List.of(), e);
        }
    }

    CompletableFuture<RdmaConnection> accept(RequestImpl r, ConnectionHandler handler, AcceptOptions options) {
        CmFuture<RdmaConnection> f = new CmFuture<>();
        IdDriver p = r.driver;
        // An offered request's decision deadline runs: the accept must not queue behind a burst.
        submitAnswer(f, () -> {
            if (p.connection == null) {
                p.connection = new ConnectionImpl(this, p, handler, turnNanos);
                p.connection.peer = r.peerAddress();
                p.connection.local = r.localAddress();
                p.qp = options.qp();
                p.messaging = options.messaging();
                p.ackTimeout = options.ackTimeout();
            }
            long req = ++requestSeq;
            p.owed.put(req, new IdDriver.Owed(cast(f), x -> p.connection));
            p.openRequest = req;
            f.onCancel(() -> execute(() -> feed(p, new Input.Command.Cancel())));
            feed(p, new Input.Command.Accept(req, options.privateData()));
        });
        return f;
    }

    CompletableFuture<Void> reject(RequestImpl r, PrivateData payload) {
        return command(r.driver, req -> new Input.Command.Reject(req, payload));
    }

    /** Close, abort or reject-like commands that complete with nothing. After shutdown: done at once. */
    CompletableFuture<Void> closeCommand(IdDriver d, LongFunction<Input.Command> make) {
        if (stopped.isDone() && broken == null) {
            return CompletableFuture.completedFuture(null);
        }
        return command(d, make);
    }

    private CompletableFuture<Void> command(IdDriver d, LongFunction<Input.Command> make) {
        CmFuture<Void> f = new CmFuture<>();
        submit(f, () -> {
            long req = ++requestSeq;
            d.owed.put(req, new IdDriver.Owed(cast(f), x -> null));
            feed(d, make.apply(req));
        });
        return f;
    }


    // ------------------------------------------------------------------ UD endpoints (any thread)

    /**
     * Opens a datagram endpoint: a UD listener bound to {@code local} (answers SIDR requests) and a
     * UD id resolved on the same address that gets the UD QP. Waits (bounded) until the QP exists.
     */
    public org.rdmacm4j.cm.core.DatagramEndpoint openDatagram(InetSocketAddress local,
                                                              org.rdmacm4j.cm.core.DatagramOptions options,
                                                              org.rdmacm4j.cm.core.DatagramHandler handler) {
        LibraryThread.refuseBlocking("openDatagram()");
        DatagramEndpointImpl ep = new DatagramEndpointImpl(this, handler, options);
        CmFuture<Object> f = new CmFuture<>();
        submit(f, () -> {
            NativeId lid = null;
            NativeId mid;
            try {
                lid = port.createUdId();
                port.bind(lid, local);
                port.listen(lid, options.backlog());
                mid = port.createUdId();
            } catch (PortCallException e) {
                if (lid != null) {
                    port.destroyId(lid);
                }
                f.completeExceptionally(new RdmaCmException("cannot open a datagram endpoint on " + local + ": "
                        + e.getMessage(), List.of(), e));
                return;
            }
            IdDriver l = newDriver(IdDriver.Kind.DATAGRAM_LISTENER,
                    new ListenerMachine(ListenOptions.defaults().listenerPolicy()), ListenerState.listening(), lid);
            l.endpoint = ep;
            ep.listener = l;
            ep.local = port.localAddress(lid);
            IdDriver d = newDriver(IdDriver.Kind.DATAGRAM, new UdMachine(udPolicy(false, Deadlines.defaults())),
                    UdState.initial(), mid);
            d.endpoint = ep;
            ep.main = d;
            d.source = new InetSocketAddress(local.getAddress(), 0);
            d.destination = new InetSocketAddress(local.getAddress(), 0);
            long req = ++requestSeq;
            d.owed.put(req, new IdDriver.Owed(f, x -> ep));
            feed(d, new Input.Command.Connect(req, PrivateData.none(MessageKind.SIDR_REQUEST)));
        });
        // The machine's own connect deadline (address resolution, QP) is the real bound, typed and with
        // history; this wait only guards against a dispatcher that no longer runs. It is generous: the
        // first endpoint of a cold JVM loads the UD classes on the dispatcher, which took 7-15 s under
        // the QEMU/TCG guest with its class path on 9p.
        long waitMs = Math.max(config.listenTimeout().toMillis(), Deadlines.defaults().connect().toMillis() + 20_000);
        try {
            f.get(waitMs, TimeUnit.MILLISECONDS);
            return ep;
        } catch (java.util.concurrent.ExecutionException e) {
            closeDatagram(ep);
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new RdmaCmException("cannot open a datagram endpoint on " + local, List.of(), e.getCause());
        } catch (TimeoutException e) {
            closeDatagram(ep);
            IdDriver m = ep.main;
            throw new RdmaCmException("open a datagram endpoint on " + local + ": not ready within " + waitMs + " ms",
                    m == null ? List.of() : m.historySnapshot(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeDatagram(ep);
            throw new RdmaCmException("open a datagram endpoint on " + local + " interrupted", List.of(), e);
        }
    }

    CompletableFuture<org.rdmacm4j.cm.core.DatagramPeer> resolveDatagramPeer(DatagramEndpointImpl ep,
                                                                          InetSocketAddress remote) {
        CmFuture<org.rdmacm4j.cm.core.DatagramPeer> f = new CmFuture<>();
        submit(f, () -> {
            if (f.isDone()) {
                return;
            }
            if (ep.main == null || ep.main.retired || ep.path == null) {
                f.completeExceptionally(new ConnectionClosedException(ep + " is closed", List.of()));
                return;
            }
            NativeId nid;
            try {
                nid = port.createUdId();
            } catch (PortCallException e) {
                f.completeExceptionally(new ConnectionFailedException("resolve " + remote + ": " + e.getMessage(),
                        List.of(), e));
                return;
            }
            Deadlines dd = Deadlines.defaults();
            Duration t = ep.options.resolveTimeout();
            Deadlines deadlines = new Deadlines(t, min(dd.resolveAddr(), t), min(dd.resolveRoute(), t), dd.decision(),
                    dd.accept(), dd.disconnect(), dd.timewait(), dd.drain(), dd.quiesce());
            IdDriver d = newDriver(IdDriver.Kind.SIDR_QUERY, new UdMachine(udPolicy(true, deadlines)),
                    UdState.initial(), nid);
            d.endpoint = ep;
            d.source = new InetSocketAddress(ep.local.getAddress(), 0);
            d.destination = remote;
            long req = ++requestSeq;
            d.owed.put(req, new IdDriver.Owed(cast(f), x -> x));
            f.onCancel(() -> execute(() -> feed(d, new Input.Command.Cancel())));
            feed(d, new Input.Command.Connect(req, PrivateData.none(MessageKind.SIDR_REQUEST)));
        });
        return f;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    CompletableFuture<org.rdmacm4j.cm.core.Membership> join(DatagramEndpointImpl ep, java.net.InetAddress group,
                                                         org.rdmacm4j.cm.core.JoinOptions options) {
        CmFuture<org.rdmacm4j.cm.core.Membership> f = new CmFuture<>();
        String name = group.getHostAddress();
        submit(f, () -> {
            IdDriver d = ep.main;
            long req = ++requestSeq;
            d.owed.put(req, new IdDriver.Owed(cast(f), x -> x));
            d.joining.put(name, options);
            feed(d, new Input.Command.JoinMulticast(req, name));
        });
        return f;
    }

    CompletableFuture<Void> leave(DatagramEndpointImpl ep, MembershipImpl m) {
        CmFuture<Void> f = new CmFuture<>();
        String name = m.group().getHostAddress();
        submit(f, () -> {
            IdDriver d = ep.main;
            if (d.retired || d.memberships.get(name) != m || m.rejoinPending) {
                // Gone already, or left after a MULTICAST_ERROR and waiting for its re-join: nothing
                // is joined in the kernel, so dropping it also cancels the re-join (see rejoin()).
                dropMembership(d, name);
                m.destroy();
                f.complete(null);
                return;
            }
            long req = ++requestSeq;
            d.owed.put(req, new IdDriver.Owed(cast(f), x -> {
                dropMembership(d, name);
                return null;
            }));
            feed(d, new Input.Command.LeaveMulticast(req, name));
        });
        return f;
    }

    private void dropMembership(IdDriver d, String group) {
        MembershipImpl m = d.memberships.remove(group);
        if (m != null) {
            m.path.noLoopback.remove(m.group());
            m.destroy();
        }
    }

    /** Closes both ids of the endpoint; the future completes when both are retired. */
    CompletableFuture<Void> closeDatagram(DatagramEndpointImpl ep) {
        if (stopped.isDone() && broken == null) {
            return CompletableFuture.completedFuture(null);
        }
        execute(() -> {
            closeQuietly(ep.main);
            closeQuietly(ep.listener);
        });
        return ep.closed.copy();
    }

    /** Feeds Close to a live id with a future nobody waits for. Dispatcher thread. */
    private void closeQuietly(IdDriver d) {
        if (d == null || d.retired) {
            return;
        }
        long req = ++requestSeq;
        d.owed.put(req, new IdDriver.Owed(cast(new CmFuture<Void>()), x -> null));
        feed(d, new Input.Command.Close(req));
    }

    /** Destroys a peer's address handle on the dispatcher. Any thread. */
    void destroyHandle(DatagramPath.TargetHandle h) {
        submit(new CompletableFuture<>(), h::destroy);
    }

    void datagramCallbackFailed(DatagramEndpointImpl ep, Throwable t) {
        stats.callbackFailures.increment();
        LOG.log(Level.WARNING, "a DatagramHandler callback of " + ep + " threw; ignored", t);
    }

    private ConnectionPolicy udPolicy(boolean sidr, Deadlines deadlines) {
        ConnectOptions o = ConnectOptions.defaults();
        // No re-joins in the machine: the dispatcher applies each membership's RejoinPolicy (backoff).
        return new ConnectionPolicy(config.defaultTransport(), deadlines, RetryPolicy.never(), o.tuning(), false, false,
                sidr, 0);
    }

    /** A SIDR request on an endpoint's listener: a UD machine for its id, answered at once. */
    private void sidrRequest(IdDriver listener, Input.CmEvent ev) {
        NativeId nid = offered.remove(ev.seq());
        if (nid == null) {
            LOG.log(Level.WARNING, listener.name() + ": OfferRequest for an unknown request " + ev.seq());
            return;
        }
        Deadlines dd = Deadlines.defaults();
        UdMachine machine = new UdMachine(udPolicy(false, dd));
        Transition<? extends MachineState<?>> opened = machine.openRequest(ev, port.deviceLimits(nid));
        IdDriver p = newDriver(IdDriver.Kind.SIDR_ANSWER, machine, opened.next(), nid);
        p.offeredBy = listener;
        p.endpoint = listener.endpoint;
        p.history.add(turnNanos, p.phase(), "CONNECT_REQUEST (SIDR)");
        Input follow = run(p, opened.actions());
        if (follow != null) {
            feed(p, follow);
        }
        long req = ++requestSeq;
        p.owed.put(req, new IdDriver.Owed(cast(new CmFuture<Void>()), x -> null));
        feed(p, new Input.Command.Accept(req, PrivateData.none(MessageKind.SIDR_REPLY)));
    }

    public CmStatistics statistics() {
        return stats.snapshot();
    }

    /** Null while healthy; the cause once the dispatcher died. */
    public Throwable brokenCause() {
        return broken;
    }

    /**
     * Closes (or aborts) every id, waits for them up to {@code deadline}, stops the thread and
     * frees the port. Any thread but a library thread. Idempotent.
     */
    public void shutdown(boolean graceful, Duration deadline) {
        LibraryThread.refuseBlocking("RdmaCm.close()");
        long end = System.nanoTime() + deadline.toNanos();
        CompletableFuture<List<CompletableFuture<Void>>> closing = new CompletableFuture<>();
        boolean queued = submit(closing, () -> {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (IdDriver d : List.copyOf(live)) {
                CmFuture<Void> f = new CmFuture<>();
                long req = ++requestSeq;
                d.owed.put(req, new IdDriver.Owed(cast(f), x -> null));
                all.add(f);
                feed(d, graceful ? new Input.Command.Close(req) : new Input.Command.Abort(req));
            }
            closing.complete(all);
        });
        if (queued) {
            try {
                List<CompletableFuture<Void>> all = closing.get(remaining(end), TimeUnit.NANOSECONDS);
                CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                        .get(remaining(end), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                LOG.log(Level.WARNING, "RdmaCm close: ids still open after " + deadline + ": " + liveNames());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException e) {
                LOG.log(Level.WARNING, "RdmaCm close: " + e.getCause());
            }
        }
        stopRequested = true;
        port.wakeup();
        try {
            stopped.get(Math.max(remaining(end), TimeUnit.SECONDS.toNanos(5)), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.log(Level.ERROR, "RdmaCm close: the dispatcher thread did not stop; leaving it");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            LOG.log(Level.WARNING, "RdmaCm close: " + e.getCause());
        }
    }

    private static long remaining(long end) {
        return Math.max(0, end - System.nanoTime());
    }

    private String liveNames() {
        return "(" + stats.liveIds + " ids)";
    }

    // ------------------------------------------------------------------ queue

    /** Queues work for the dispatcher; fails {@code owner} if the dispatcher no longer runs. Any thread. */
    private boolean submit(CompletableFuture<?> owner, Runnable work) {
        return enqueue(tasks, owner, work);
    }

    /**
     * Queues {@code work} on {@code queue} ({@link #tasks} or {@link #answers}) and wakes the
     * dispatcher; once the door is closed, fails {@code owner} instead (the dispatcher died, or the
     * RdmaCm is closed). Any thread.
     */
    private boolean enqueue(ArrayDeque<Task> queue, CompletableFuture<?> owner, Runnable work) {
        synchronized (tasks) {   // the lock of both queues and of the door
            if (accepting) {
                queue.add(new Task(work, owner));
                port.wakeup();
                return true;
            }
        }
        Throwable cause = broken;
        owner.completeExceptionally(cause != null
                ? new ConnectionFailedException("the rdmacm4j dispatcher died", List.of(), cause)
                : new ConnectionClosedException("the RdmaCm is closed", List.of()));
        return false;
    }

    /** Queues internal work (no future of its own). */
    private void execute(Runnable work) {
        submit(new CompletableFuture<>(), work);
    }

    /**
     * Queues a poller's answer (see {@link #answers}). Any thread. After the door closed it is dropped:
     * the loop is retiring every id anyway, and nothing owes a future to an answer.
     */
    private void answer(Runnable work) {
        enqueue(answers, noOwner, work);   // failing noOwner after the door closed just drops the answer
    }

    /** Like {@link #submit}, into {@link #answers}: for work with a deadline already running. Any thread. */
    private void submitAnswer(CompletableFuture<?> owner, Runnable work) {
        enqueue(answers, owner, work);
    }

    // ------------------------------------------------------------------ the loop (dispatcher thread)

    private void loop() {
        try {
            turnNanos = clock.getAsLong();
            while (!stopRequested) {
                // Two clock reads per turn (see turnNanos): the wait is measured from the second
                // read of the last turn, which only fired timers since.
                long wait = timers.nanosUntilNext(turnNanos, MAX_WAIT_NANOS);
                synchronized (tasks) {
                    if (!tasks.isEmpty() || !answers.isEmpty()) {
                        wait = 0;
                    }
                }
                port.await(wait);
                turnNanos = clock.getAsLong();
                port.drainEvents(this);
                runAnswers();
                runTasks(TASKS_PER_TURN);
                // Up to 64 tasks ran (each with native calls): read again, so timers fire on time
                // and the next wait is not stretched by this turn's work.
                turnNanos = clock.getAsLong();
                runAnswers();   // those the tasks' actions just produced (a synchronous fake poller)
                fireTimers(turnNanos);
            }
            synchronized (tasks) {
                accepting = false;
            }
            turnNanos = clock.getAsLong();
            runTasks(Integer.MAX_VALUE);   // what was queued before the door closed still runs
            runAnswers();
            retireAllForShutdown(null);
        } catch (Throwable t) {
            broken = t;
            LOG.log(Level.ERROR, "rdmacm4j dispatcher died; failing every pending operation", t);
            synchronized (tasks) {
                accepting = false;
            }
            failQueuedTasks(t);
            retireAllForShutdown(t);
        } finally {
            try {
                port.close();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "closing the native port failed", e);
            }
            stopped.complete(null);
        }
    }

    /**
     * Runs at most {@code limit} queued tasks: under a burst (500 connects, 500 closes) the CM events
     * and poller answers that the first tasks caused are handled next turn instead of after the
     * whole burst.
     */
    private void runTasks(int limit) {
        for (int i = 0; i < limit; i++) {
            Task t;
            synchronized (tasks) {
                t = tasks.poll();
            }
            if (t == null) {
                return;
            }
            t.work().run();
        }
    }

    /** Runs every queued poller answer, including those queued while running them. */
    private void runAnswers() {
        while (true) {
            Task a;
            synchronized (tasks) {
                a = answers.poll();
            }
            if (a == null) {
                return;
            }
            a.work().run();
        }
    }

    private void failQueuedTasks(Throwable cause) {
        Task t;
        while (true) {
            synchronized (tasks) {
                t = tasks.poll();
                if (t == null) {
                    t = answers.poll();
                }
            }
            if (t == null) {
                return;
            }
            t.owner().completeExceptionally(new ConnectionFailedException("the rdmacm4j dispatcher died",
                    List.of(), cause));
        }
    }

    /**
     * Fires what is due at {@code now} (the turn's second clock read). A timer that falls due while
     * these run waits for the next turn, whose wait is then 0 or nearly.
     */
    private void fireTimers(long now) {
        if (!gates.isEmpty()) {
            expireLockstepWaits(now);
        }
        TimerQueue.Expiry e;
        while ((e = timers.pollDue(now)) != null) {
            IdDriver d = e.driver();
            feed(d, new Input.TimerExpired(e.kind(), e.generation()));
        }
        Runnable task;
        while ((task = timers.pollDueTask(now)) != null) {
            task.run();
        }
    }

    /** After the loop: whatever is still live (close deadline passed, or the loop died) is given up. */
    private void retireAllForShutdown(Throwable cause) {
        for (IdDriver d : List.copyOf(live)) {
            RuntimeException ex = cause == null
                    ? new ConnectionClosedException(d.name() + ": the RdmaCm closed before it did", d.historySnapshot())
                    : new ConnectionFailedException(d.name() + ": the rdmacm4j dispatcher died", d.historySnapshot(),
                    cause);
            failAllOwed(d, ex);
            if (!d.idDestroyed && d.nativeId != null) {
                port.leak(d.nativeId, "still open when its RdmaCm stopped");
                d.leaked = true;
            }
            retire(d);
        }
    }

    // ------------------------------------------------------------------ events from the port

    @Override
    public void cmEvent(NativeId id, NativeId listenId, CmEventType type, int status, EventParams params) {
        stats.cmEvents.increment();
        Input.CmEvent ev = new Input.CmEvent(++eventSeq, type, status, params);
        if (type == CmEventType.CONNECT_REQUEST) {
            connectRequest(id, listenId, ev);
            return;
        }
        IdDriver d = id.driver();
        if (d == null) {
            LOG.log(Level.WARNING, "rdma_cm event " + type + " for an id no machine owns; ignored");
            return;
        }
        feed(d, ev);
        JfrEvents.CmEventDispatched jfr = new JfrEvents.CmEventDispatched();
        if (jfr.shouldCommit()) {
            jfr.id = d.name();
            jfr.event = type.name();
            jfr.status = status;
            jfr.phase = d.phase();
            jfr.commit();
        }
    }

    private void connectRequest(NativeId id, NativeId listenId, Input.CmEvent ev) {
        stats.requestsReceived.increment();
        IdDriver l = listenId == null ? null : listenId.driver();
        if (l == null || l.retired) {
            port.reject(id, Rejects.listenerClosed());
            port.destroyId(id);
            return;
        }
        offered.put(ev.seq(), id);
        feed(l, ev);
        NativeId unclaimed = offered.remove(ev.seq());
        if (unclaimed != null) {
            // The listener neither offered nor refused it (it crashed): answer the peer anyway.
            LOG.log(Level.WARNING, l.name() + " did not decide on connection request " + ev.seq() + "; refusing it");
            port.reject(unclaimed, Rejects.listenerClosed());
            port.destroyId(unclaimed);
        }
    }

    @Override
    public void asyncEvent(NativeId id, AsyncEventType type, int portNumber) {
        stats.asyncEvents.increment();
        IdDriver d = id.driver();
        if (d == null) {
            return;
        }
        feed(d, new Input.AsyncEvent(++eventSeq, type, portNumber));
    }

    @Override
    public void unroutable(String what) {
        LOG.log(Level.DEBUG, what);
    }

    // ------------------------------------------------------------------ stepping

    /**
     * Feeds one input to one id and runs its actions; then the follow-up CallFailed or
     * CallsSucceeded the contract requires, before any other input of that id. Not re-entrant:
     * inputs produced for other ids while actions run are queued and fed afterwards, in order.
     */
    void feed(IdDriver d, Input first) {
        if (feeding) {
            deferred.add(new Deferred(d, first));
            return;
        }
        feeding = true;
        try {
            step(d, first);
            Deferred next;
            while ((next = deferred.poll()) != null) {
                step(next.driver(), next.input());
            }
        } finally {
            feeding = false;
        }
    }

    private void step(IdDriver d, Input first) {
        try {
            if (d.lockstep != null && heldForLockstep(d, first)) {
                return;
            }
            Input in = first;
            while (in != null) {
                Transition<? extends MachineState<?>> t = d.step(in, turnNanos);
                in = run(d, t.actions());
            }
            if (d.terminal() && !d.retired) {
                retire(d);
            }
        } catch (RuntimeException | LinkageError | AssertionError e) {
            crash(d, e);
        }
    }

    // ------------------------------------------------------------------ step barriers (lockstep)

    /**
     * Whether {@code in} is held at {@code d}'s step barrier: it enters the next step and not every
     * party is there yet. Anything else reaching a held party makes it leave the barrier: the input
     * it held is stepped first (it happened first), then {@code in} by the caller.
     */
    private boolean heldForLockstep(IdDriver d, Input in) {
        LockstepGate g = d.lockstep;
        LockstepGate.Held mine = g.heldOf(d);
        if (mine != null) {
            g.leave(d);
            releaseLockstep(g);
            step(d, mine.input());
            return false;
        }
        LockstepGate.Step s = LockstepGate.stepOf(in);
        boolean held = s != null && s.ordinal() == d.lockstepNext && !g.arrive(d, s, in, d.lockstepDeadline);
        if (!held) {
            releaseLockstep(g);
            if (d.lockstepNext >= LockstepGate.Step.values().length) {
                d.lockstep = null;   // past the last step: on its own from here
            }
        }
        return held;
    }

    /** Feeds the parties whose step opened (queued behind the current step if one is running). */
    private void releaseLockstep(LockstepGate g) {
        for (LockstepGate.Held h : g.released()) {
            feed(h.driver(), h.input());
        }
    }

    /** A connect of the barrier that will never step (cancelled or failed before its machine started). */
    private void absentFromLockstep(LockstepGate g) {
        if (g != null) {
            g.absent();
            releaseLockstep(g);
        }
    }

    /**
     * Parties held at the first step have no machine deadline yet: past their connect deadline they
     * fail with ConnectTimeoutException (fewer connects than the barrier's parties were started).
     */
    private void expireLockstepWaits(long now) {
        for (LockstepGate g : List.copyOf(gates.values())) {
            for (LockstepGate.Held h : g.overdue(now)) {
                IdDriver d = h.driver();
                if (d.lockstep != g || g.heldOf(d) != h) {
                    continue;   // released meanwhile by another party's leaving: no longer waiting
                }
                IdDriver.Owed o = d.owed.get(d.openRequest);
                if (o != null) {
                    o.future().completeExceptionally(new ConnectTimeoutException(d.name()
                            + ": the other connects of its step barrier did not start within the connect timeout",
                            d.historySnapshot()));
                }
                feed(d, new Input.Command.Cancel());   // leaves the barrier, starts and at once cancels: id destroyed
            }
        }
    }

    /** Runs actions in order; returns the follow-up input (CallFailed, CallsSucceeded) or null. */
    private Input run(IdDriver d, List<Action> actions) {
        boolean nativeCallRan = false;
        // Indexed (the list is an immutable, random-access copy): no iterator per step.
        for (int i = 0, n = actions.size(); i < n; i++) {
            Action a = actions.get(i);
            if (a instanceof Action.NativeCall call) {
                try {
                    runNative(d, call);
                    nativeCallRan = true;
                } catch (PortCallException e) {
                    LOG.log(Level.DEBUG, () -> d.name() + ": " + e.getMessage());
                    return new Input.CallFailed(call, e.errno());
                }
            } else {
                runAction(d, a);
            }
        }
        return nativeCallRan ? new Input.CallsSucceeded() : null;
    }

    private void runNative(IdDriver d, Action.NativeCall call) {
        switch (call) {
            case Action.CreateId c -> {
                NativeId nid = d.kind.ud() ? port.createUdId() : port.createId();
                nid.attach(d);
                d.nativeId = nid;
                d.idDestroyed = false;
            }
            case Action.ResolveAddr r -> port.resolveAddr(d.nativeId, d.source, d.destination, r.timeoutMs());
            // The id options go in with the call whose step reads them (the path record, the RTS
            // transition); a failure of either is the step's failure. Each new id of a retry gets them again.
            case Action.ResolveRoute r -> {
                d.typeOfService.ifPresent(tos -> port.setTypeOfService(d.nativeId, tos));
                port.resolveRoute(d.nativeId, r.timeoutMs());
            }
            case Action.CreateQp c when d.kind == IdDriver.Kind.DATAGRAM -> {
                DatagramPath p = port.createUdQp(d.nativeId, d.endpoint.options);
                p.bind(d.endpoint);
                d.endpoint.path = p;
            }
            // SIDR ids have no QP of their own: the reply names the endpoint's QP.
            case Action.CreateQp c when d.kind.ud() -> { }
            case Action.CreateQp c -> {
                port.createQp(d.nativeId, d.qp, d.messaging);
                ConnectionImpl conn = d.connection;
                if (conn != null) {
                    DataPath dp = port.dataPath(d.nativeId);
                    if (dp != null) {
                        dp.bind(conn);
                        conn.dataPath = dp;
                    }
                    OneSided ops = port.oneSided(d.nativeId);
                    if (ops != null) {
                        ops.bind(conn);
                        conn.oneSided = ops;
                    }
                    conn.raw = port.raw(d.nativeId);
                    if (dp == null) {
                        port.rawCompletions(d.nativeId, conn::rawCompletion);
                    }
                }
            }
            case Action.Connect c -> {
                d.ackTimeout.ifPresent(t -> port.setAckTimeout(d.nativeId, t));
                port.connect(d.nativeId, c.privateData(), clamp(c.tuning(), port.deviceLimits(d.nativeId)));
            }
            case Action.Accept a when d.kind == IdDriver.Kind.SIDR_ANSWER -> {
                DatagramPath p = d.endpoint.path;
                if (p == null) {
                    throw new PortCallException("rdma_accept", 11, "the endpoint has no QP (yet or any more)", null);
                }
                port.acceptSidr(d.nativeId, a.privateData(), p.qpNumber());
            }
            case Action.Accept a -> {
                d.ackTimeout.ifPresent(t -> port.setAckTimeout(d.nativeId, t));
                port.accept(d.nativeId, a.privateData(), clamp(a.tuning(), port.deviceLimits(d.nativeId)));
            }
            case Action.JoinMulticast j when d.kind == IdDriver.Kind.DATAGRAM ->
                    port.joinMulticast(d.nativeId, j.group(), joinOptions(d, j.group()).sendOnly());
            case Action.JoinMulticast j -> throw new PortCallException("rdma_join_multicast_ex", 95,
                    "multicast needs a UD id; this one is RC", null);
            case Action.Relisten r -> relisten(d);
        }
    }

    private void relisten(IdDriver d) {
        ListenerImpl l = d.listener;
        NativeId nid = port.createId();
        try {
            port.bind(nid, l.local);
            port.listen(nid, l.options.backlog());
        } catch (PortCallException e) {
            port.destroyId(nid);
            throw e;
        }
        nid.attach(d);
        d.nativeId = nid;
        d.idDestroyed = false;
    }

    private void runAction(IdDriver d, Action a) {
        switch (a) {
            // Bookkeeping only: verbs acked each event when it copied it (CmEventChannel, DeviceContext).
            case Action.AckCmEvent x -> { }
            case Action.AckAsyncEvent x -> { }
            case Action.Reject r -> {
                port.reject(d.nativeId, r.privateData());
                stats.rejects.increment();
            }
            case Action.Notify n -> port.notifyEstablished(d.nativeId);
            case Action.Disconnect x -> port.disconnect(d.nativeId);
            case Action.DrainQp x -> port.drainQp(d.nativeId,
                    () -> answer(() -> feed(d, new Input.Quiesced(Input.Resource.QP))));
            case Action.QuiesceCq x -> port.quiesceCq(d.nativeId,
                    () -> answer(() -> feed(d, new Input.Quiesced(Input.Resource.CQ))));
            case Action.DestroyQp x -> port.destroyQp(d.nativeId);
            case Action.DestroyCq x -> port.destroyCq(d.nativeId);
            case Action.DestroyCompChannel x -> port.destroyCompChannel(d.nativeId);
            case Action.DestroyId x -> {
                if (d.idDestroyed) {
                    LOG.log(Level.WARNING, d.name() + ": a second DestroyId ignored");
                } else {
                    port.destroyId(d.nativeId);
                    d.idDestroyed = true;
                }
            }
            case Action.LeakId x -> {
                port.leak(d.nativeId, x.why());
                d.leaked = true;
                d.idDestroyed = true;
                LOG.log(Level.WARNING, d.name() + ": native objects given up (" + x.why() + ")\n"
                        + d.historySnapshot());
            }
            case Action.LeaveMulticast x when d.kind == IdDriver.Kind.DATAGRAM -> port.leaveMulticast(d.nativeId, x.group());
            case Action.LeaveMulticast x -> LOG.log(Level.WARNING, d.name() + ": LeaveMulticast on an RC id ignored");
            case Action.OfferRequest o when d.kind == IdDriver.Kind.DATAGRAM_LISTENER -> sidrRequest(d, o.request());
            case Action.OfferRequest o -> offer(d, o.request());
            case Action.RefuseRequest r -> refuse(r.request(), r.rejectData());
            case Action.SettleRequest s -> settle(d);
            case Action.ArmTimer t -> timers.arm(d, t.kind(), t.generation(), freshNanos() + t.delayNanos());
            case Action.CancelTimer t -> timers.cancel(d, t.kind());
            case Action.CompleteFuture c -> complete(d, c.request(), c.outcome());
            case Action.FailFuture f -> fail(d, f.request(), f.failure());
            case Action.CallHandler h -> notice(d, h.notice());
            case Action.LogUnexpected u -> LOG.log(Level.DEBUG, () -> d.name() + ": unexpected " + u.input()
                    + " in " + u.phase() + ": " + u.why());
            case Action.NativeCall n -> throw new AssertionError("native calls run in runNative: " + n);
        }
    }

    // ------------------------------------------------------------------ requests

    private void offer(IdDriver listener, Input.CmEvent ev) {
        NativeId nid = offered.remove(ev.seq());
        if (nid == null) {
            LOG.log(Level.WARNING, listener.name() + ": OfferRequest for an unknown request " + ev.seq());
            return;
        }
        ListenerImpl l = listener.listener;
        Transport transport = port.transport(nid);
        PassiveConnectionMachine machine = l.passiveMachine;
        if (machine == null || machine.policy().transport() != transport) {
            machine = l.passiveMachine = new PassiveConnectionMachine(passivePolicy(l.options, transport));
        }
        Transition<? extends MachineState<?>> opened = machine.open(ev, port.deviceLimits(nid));
        IdDriver p = newDriver(IdDriver.Kind.PASSIVE, machine, opened.next(), nid);
        p.offeredBy = listener;
        p.keepalive = l.options.keepalive();
        p.history.add(turnNanos, p.phase(), "CONNECT_REQUEST");
        RequestImpl r = new RequestImpl(this, p, port.peerAddress(nid), port.localAddress(nid),
                PrivateData.decode(ev.params().privateData()));
        p.request = r;
        Input follow = run(p, opened.actions());
        if (follow != null) {
            feed(p, follow);   // deferred: we are inside the listener's step
        }
        if (l.handler != null) {
            RequestHandler h = l.handler;
            p.callbacks.execute(() -> {
                try {
                    h.onRequest(r);
                } catch (Throwable t) {
                    stats.callbackFailures.increment();
                    LOG.log(Level.WARNING, "RequestHandler threw for " + r + "; rejecting the request", t);
                    r.reject();
                }
            });
        } else {
            l.enqueue(r, p.callbacks);
        }
    }

    /** A pull-form request nobody will take (the listener is closing): refuse it. Any thread. */
    void refuseQueued(RequestImpl r) {
        execute(() -> {
            long req = ++requestSeq;
            r.driver.owed.put(req, new IdDriver.Owed(cast(new CmFuture<Void>()), x -> null));
            feed(r.driver, new Input.Command.Close(req));
        });
    }

    private void refuse(Input.CmEvent request, org.rdmacm4j.cm.statemachine.Bytes rejectData) {
        NativeId nid = offered.remove(request.seq());
        if (nid == null) {
            LOG.log(Level.WARNING, "RefuseRequest for an unknown request " + request.seq());
            return;
        }
        port.reject(nid, rejectData);
        port.destroyId(nid);
        stats.rejects.increment();
    }

    private void settle(IdDriver d) {
        if (d.offeredBy != null && !d.requestSettled) {
            d.requestSettled = true;
            IdDriver l = d.offeredBy;
            feed(l, new Input.RequestSettled());
        }
    }

    // ------------------------------------------------------------------ futures and handlers

    private void complete(IdDriver d, long request, Outcome outcome) {
        IdDriver.Owed owed = d.owed.remove(request);
        if (owed == null) {
            LOG.log(Level.DEBUG, () -> d.name() + ": CompleteFuture for unknown request " + request);
            return;
        }
        if (outcome instanceof Outcome.Connected c) {
            connected(d, c);
        }
        Object value;
        try {
            value = owed.value().apply(udValue(d, outcome));
        } catch (PortCallException e) {
            RuntimeException ex = new ConnectionFailedException(d.name() + ": " + e.getMessage(), d.historySnapshot(), e);
            d.callbacks.execute(() -> owed.future().completeExceptionally(ex));
            closeHelper(d);
            return;
        }
        closeHelper(d);
        // A step that ended the id (close, abort): isClosed() is true by the time its future completes.
        CompletableFuture<Void> closedFirst = !d.terminal() ? null
                : d.connection != null ? d.connection.closed : d.listener != null ? d.listener.closed : null;
        d.callbacks.execute(() -> {
            if (closedFirst != null) {
                closedFirst.complete(null);
            }
            if (!owed.future().complete(value) && owed.future().isCancelled() && value instanceof ConnectionImpl c) {
                c.abort();   // cancelled after it was established but before it was delivered: nobody holds it
            }
        });
    }

    /** UD outcomes become the user's objects: a resolved peer, a membership. Dispatcher thread. */
    private Object udValue(IdDriver d, Outcome outcome) {
        if (d.kind == IdDriver.Kind.SIDR_QUERY && outcome instanceof Outcome.UdReady) {
            DatagramPath p = d.endpoint.path;
            if (p == null) {
                throw new PortCallException("ibv_create_ah", 19, "the endpoint closed during the resolution", null);
            }
            return port.peer(d.nativeId, p, d.destination);
        }
        if (d.kind == IdDriver.Kind.DATAGRAM && outcome instanceof Outcome.Joined j) {
            org.rdmacm4j.cm.core.JoinOptions options = d.joining.remove(j.group());
            if (options == null) {
                options = org.rdmacm4j.cm.core.JoinOptions.defaults();
            }
            MembershipImpl m = port.membership(d.nativeId, j.group(), d.endpoint.path, d.endpoint, options);
            if (options.noLoopback()) {
                d.endpoint.path.noLoopback.add(m.group());
            }
            d.memberships.put(j.group(), m);
            return m;
        }
        return outcome;
    }

    /** A SIDR id has done its one job once its future is settled: close it (deferred). */
    private void closeHelper(IdDriver d) {
        if ((d.kind == IdDriver.Kind.SIDR_QUERY || d.kind == IdDriver.Kind.SIDR_ANSWER) && !d.terminal()) {
            closeQuietly(d);
        }
    }

    private void fail(IdDriver d, long request, org.rdmacm4j.cm.statemachine.Failure failure) {
        IdDriver.Owed owed = d.owed.remove(request);
        if (owed == null) {
            LOG.log(Level.DEBUG, () -> d.name() + ": FailFuture for unknown request " + request);
            return;
        }
        RuntimeException ex = Failures.toException(failure, d.name(), d.historySnapshot());
        if (request == d.openRequest && d.kind == IdDriver.Kind.ACTIVE) {
            stats.connectFailed(Failures.counterKey(ex));
            JfrEvents.ConnectFailed jfr = new JfrEvents.ConnectFailed();
            if (jfr.shouldCommit()) {
                jfr.connection = d.name();
                jfr.reason = ex.getMessage();
                jfr.commit();
            }
        }
        d.callbacks.execute(() -> owed.future().completeExceptionally(ex));
    }

    private void failAllOwed(IdDriver d, RuntimeException ex) {
        for (IdDriver.Owed owed : d.owed.values()) {
            d.callbacks.execute(() -> owed.future().completeExceptionally(ex));
        }
        d.owed.clear();
    }

    /** Fills in the connection's addresses and the peer's data (once; the dispatcher thread). */
    private void connected(IdDriver d, Outcome.Connected c) {
        ConnectionImpl conn = d.connection;
        if (conn == null || conn.establishedNanos != 0) {
            return;
        }
        conn.local = port.localAddress(d.nativeId);
        conn.peer = port.peerAddress(d.nativeId);
        conn.peerData = c.peerData().payload().toArray();
        conn.establishedNanos = turnNanos;
        if (d.keepalive != null) {
            // Ticks on the connection's poller from here on; the QP is in RTS only now.
            port.startKeepalive(d.nativeId, d.keepalive, conn::peerUnresponsive);
        }
        if (d.kind == IdDriver.Kind.ACTIVE) {
            stats.connectsSucceeded.increment();
        } else {
            stats.accepts.increment();
        }
        JfrEvents.Established jfr = new JfrEvents.Established();
        if (jfr.shouldCommit()) {
            jfr.connection = d.name();
            jfr.peer = String.valueOf(conn.peer);
            jfr.setupNanos = conn.establishedNanos - conn.startedNanos;
            jfr.commit();
        }
    }

    private void notice(IdDriver d, Notice n) {
        if (d.kind.ud()) {
            udNotice(d, n);
            return;
        }
        switch (n) {
            case Notice.Established e -> {
                connected(d, e.connection());
                handler(d, (h, c) -> h.onEstablished(c));
            }
            case Notice.Disconnected x -> handler(d, (h, c) -> h.onDisconnected(c));
            case Notice.Error e -> {
                var ex = Failures.forHandler(e.failure(), d.name(), d.historySnapshot());
                handler(d, (h, c) -> h.onError(c, ex));
            }
            case Notice.AddressChanged x -> {
                if (d.listener != null) {
                    listenerNotice(d.listener, "ADDR_CHANGE", h -> h.onAddressChanged(d.listener));
                } else {
                    handler(d, (h, c) -> h.onAddressChanged(c));
                }
            }
            case Notice.DeviceRemoved x when d.listener != null ->
                    listenerNotice(d.listener, "DEVICE_REMOVAL", h -> h.onDeviceRemoved(d.listener));
            case Notice.DeviceRemoved x -> {
                var ex = new DeviceRemovedException(d.name() + ": the RDMA device was removed", d.historySnapshot());
                handler(d, (h, c) -> h.onError(c, ex));
            }
            case Notice.Async a -> handler(d, (h, c) -> h.onAsyncEvent(c, a.event()));
            case Notice.RequestExpired r -> {
                if (d.request != null) {
                    var ex = (org.rdmacm4j.cm.core.RequestExpiredException)
                            Failures.toException(r.failure(), d.name(), d.historySnapshot());
                    RequestImpl req = d.request;
                    d.callbacks.execute(() -> req.expired.complete(ex));
                }
            }
            case Notice.MulticastRejoined m -> LOG.log(Level.DEBUG, d.name() + ": rejoined " + m.group());
            case Notice.MulticastLost m -> LOG.log(Level.WARNING, d.name() + ": lost multicast group " + m.group());
        }
    }

    /** Notices of an endpoint's ids go to its DatagramHandler; those of SIDR ids are only logged. */
    private void udNotice(IdDriver d, Notice n) {
        DatagramEndpointImpl ep = d.endpoint;
        if (ep == null || d.kind != IdDriver.Kind.DATAGRAM && d.kind != IdDriver.Kind.DATAGRAM_LISTENER) {
            LOG.log(Level.DEBUG, () -> d.name() + ": " + n);
            return;
        }
        switch (n) {
            case Notice.MulticastRejoined m -> {
                MembershipImpl mem = d.memberships.get(m.group());
                if (mem != null) {
                    mem.rejoinAttempts = 0;
                    datagramCallback(ep, d, h -> h.onMembershipRejoined(ep, mem));
                }
            }
            case Notice.MulticastLost m -> multicastLost(ep, d, m);
            case Notice.AddressChanged x -> datagramCallback(ep, d, h -> h.onAddressChanged(ep));
            case Notice.Error e -> {
                var ex = Failures.forHandler(e.failure(), d.name(), d.historySnapshot());
                datagramCallback(ep, d, h -> h.onError(ep, ex));
            }
            case Notice.DeviceRemoved x -> {
                var ex = new DeviceRemovedException(d.name() + ": the RDMA device was removed", d.historySnapshot());
                datagramCallback(ep, d, h -> h.onError(ep, ex));
            }
            default -> LOG.log(Level.DEBUG, () -> d.name() + ": " + n);
        }
    }

    /**
     * The machine left a joined group after MULTICAST_ERROR (or a re-join failed at once): the
     * membership's RejoinPolicy decides. A re-join runs after its backoff as a JoinMulticast without
     * a future (its MULTICAST_JOIN is MulticastRejoined); leave() or close() during the wait drops
     * the membership, which the re-join then finds gone.
     */
    private void multicastLost(DatagramEndpointImpl ep, IdDriver d, Notice.MulticastLost lost) {
        MembershipImpl mem = d.memberships.get(lost.group());
        if (mem == null) {
            LOG.log(Level.DEBUG, () -> d.name() + ": MULTICAST_ERROR for " + lost.group() + ", not a membership any more");
            return;
        }
        org.rdmacm4j.cm.core.RejoinPolicy policy = mem.options().rejoin();
        boolean again = mem.rejoinAttempts < policy.maxAttempts() && !d.terminal();
        var error = new org.rdmacm4j.cm.core.MulticastException(d.name() + ": multicast group " + lost.group()
                + " lost (" + Failures.status(lost.status()) + ")" + (again ? "; re-joining (attempt "
                + (mem.rejoinAttempts + 1) + " of " + policy.maxAttempts() + ")" : "; not re-joined"),
                mem.group(), lost.status(), again, d.historySnapshot());
        datagramCallback(ep, d, h -> h.onMembershipError(ep, mem, error));
        if (!again) {
            dropMembership(d, lost.group());
            datagramCallback(ep, d, h -> h.onMembershipLost(ep, mem, error));
            return;
        }
        mem.rejoinAttempts++;
        mem.rejoinPending = true;
        timers.runAt(clock.getAsLong() + policy.backoff(mem.rejoinAttempts).toNanos(), () -> rejoin(d, mem));
    }

    private void rejoin(IdDriver d, MembershipImpl mem) {
        String group = mem.group().getHostAddress();
        if (d.retired || d.terminal() || d.memberships.get(group) != mem || !mem.rejoinPending) {
            return;   // left or closed during the backoff
        }
        mem.rejoinPending = false;
        feed(d, new Input.Command.JoinMulticast(0, group));
    }

    /** The options a join of {@code group} on {@code d} runs with: the pending join's, or the membership's on a re-join. */
    private static org.rdmacm4j.cm.core.JoinOptions joinOptions(IdDriver d, String group) {
        org.rdmacm4j.cm.core.JoinOptions o = d.joining.get(group);
        if (o == null) {
            MembershipImpl m = d.memberships.get(group);
            o = m != null ? m.options() : org.rdmacm4j.cm.core.JoinOptions.defaults();
        }
        return o;
    }

    private void datagramCallback(DatagramEndpointImpl ep, IdDriver d,
                                  Consumer<org.rdmacm4j.cm.core.DatagramHandler> call) {
        ep.main.callbacks.execute(() -> {
            try {
                call.accept(ep.handler);
            } catch (Throwable t) {
                datagramCallbackFailed(ep, t);
            }
        });
    }

    /** A listener's ADDR_CHANGE or DEVICE_REMOVAL goes to its RequestHandler (pull-form listeners have none: history only). */
    private void listenerNotice(ListenerImpl l, String what, Consumer<org.rdmacm4j.cm.core.RequestHandler> call) {
        LOG.log(Level.INFO, () -> l.driver.name() + ": " + what);
        if (l.handler == null) {
            return;
        }
        l.driver.callbacks.execute(() -> {
            try {
                call.accept(l.handler);
            } catch (Throwable t) {
                stats.callbackFailures.increment();
                LOG.log(Level.WARNING, "the RequestHandler of " + l + " threw on " + what + "; ignored", t);
            }
        });
    }

    private void handler(IdDriver d, java.util.function.BiConsumer<ConnectionHandler, ConnectionImpl> call) {
        ConnectionImpl c = d.connection;
        if (c == null || c.handler == null) {
            return;
        }
        d.callbacks.execute(() -> safely(c, h -> call.accept(h, c)));
    }

    /**
     * The message channel's receives flushed while the connection was not being torn down by us
     * ({@link FailedCompletion#UNEXPLAINED_FLUSH}). Poller thread. Only the dispatcher moves a QP to
     * ERR on purpose, and always after the machine left ESTABLISHED; so if the connection is still
     * ESTABLISHED after the grace ({@link #judgeAfterGrace}), nothing we did and nothing the CM or the
     * device reported explains the flush: the transport or the application moved the QP to ERR (a
     * peer's RDMA access with a key it was never given, say), and the connection has failed.
     */
    void unexplainedFlush(ConnectionImpl c, org.rdmacm4j.verbs.ibv.WcStatus status) {
        judgeAfterGrace(c, () -> Failures.completionFailed(c.driver.name() + ": the queue pair went to the error "
                + "state (its receives completed with " + status.cName() + ") with no disconnect or close from either "
                + "side and no event that explains it; the peer may have made an RDMA access this connection never "
                + "allowed (a key it was not given); the connection is being torn down", status, c.history()));
    }

    /**
     * The keepalive gave up on {@code c} (a probe unanswered for its misses, or failed). Poller
     * thread. Judged like an unexplained flush ({@link #judgeAfterGrace}): a peer that closed
     * normally has its DISCONNECTED (or a device its DEVICE_REMOVAL) already on the way when its
     * probes stop being answered, and that explanation, not "unresponsive", is how the connection ended.
     */
    void keepaliveVerdict(ConnectionImpl c, java.util.function.Supplier<org.rdmacm4j.cm.core.DataPathException> failure) {
        judgeAfterGrace(c, failure);
    }

    /**
     * A failure the poller noticed, decided on the dispatcher {@link #FLUSH_GRACE_NANOS} later: if
     * the connection is still ESTABLISHED then, nothing explained it and it fails with {@code failure};
     * otherwise a teardown (ours, the peer's, the device's) began meanwhile and the notice is dropped.
     * Judging on the dispatcher makes the rule race-free: every event that tears the connection down
     * is stepped there too, before or after, never during.
     */
    private void judgeAfterGrace(ConnectionImpl c, java.util.function.Supplier<org.rdmacm4j.cm.core.DataPathException> failure) {
        // An answer, not a task: behind a burst of user tasks (TASKS_PER_TURN per turn) the grace would start late.
        answer(() -> timers.runAt(clock.getAsLong() + FLUSH_GRACE_NANOS, () -> {
            IdDriver d = c.driver;
            if (d.retired || !"ESTABLISHED".equals(d.phase())) {
                return;   // a teardown (ours, the peer's, the device's) began meanwhile: it explains the notice
            }
            c.dataPathFailed(failure.get());
        }));
    }

    /** A user callback that ran outside the callback executor threw (onMessage on a poller). Any thread. */
    void callbackFailed(ConnectionImpl c, Throwable t) {
        stats.callbackFailures.increment();
        LOG.log(Level.WARNING, "a ConnectionHandler callback of " + c + " threw; ignored", t);
    }

    private void safely(ConnectionImpl c, Consumer<ConnectionHandler> call) {
        try {
            call.accept(c.handler);
        } catch (Throwable t) {
            stats.callbackFailures.increment();
            LOG.log(Level.WARNING, "a ConnectionHandler callback of " + c + " threw; ignored", t);
        }
    }

    // ------------------------------------------------------------------ lifecycle of drivers

    private IdDriver newDriver(IdDriver.Kind kind, org.rdmacm4j.cm.statemachine.CmIdMachine<?, ?> machine,
                               MachineState<?> initial, NativeId nid) {
        IdDriver d = new IdDriver(kind, ++idSerial, machine, initial, config.historySize(), turnNanos,
                new SerialExecutor(callbackBase));
        nid.attach(d);
        d.nativeId = nid;
        live.add(d);
        stats.liveIds = live.size();
        return d;
    }

    /** The machine reached its terminal phase: settle what is left and tell the application. */
    private void retire(IdDriver d) {
        if (d.retired) {
            return;
        }
        d.retired = true;
        timers.cancelAll(d);
        if (d.lockstep != null) {   // the others no longer wait for it
            LockstepGate g = d.lockstep;
            g.leave(d);
            releaseLockstep(g);
        }
        live.remove(d);
        stats.liveIds = live.size();
        if (!d.owed.isEmpty()) {
            failAllOwed(d, new ConnectionClosedException(d.name() + " closed", d.historySnapshot()));
        }
        if (d.offeredBy != null) {
            settle(d);
        }
        ConnectionImpl c = d.connection;
        if (c != null && c.establishedNanos != 0) {
            stats.disconnects.increment();   // an established connection ended, whoever closed it
        }
        if (c != null) {
            JfrEvents.Closed jfr = new JfrEvents.Closed();
            if (jfr.shouldCommit()) {
                jfr.connection = d.name();
                jfr.lifetimeNanos = clock.getAsLong() - d.createdNanos;
                jfr.leaked = d.leaked;
                jfr.commit();
            }
            d.callbacks.execute(() -> c.closed.complete(null));
            handler(d, (h, conn) -> h.onClosed(conn));
        }
        if (d.kind == IdDriver.Kind.DATAGRAM || d.kind == IdDriver.Kind.DATAGRAM_LISTENER) {
            retireEndpointId(d);
        }
        ListenerImpl l = d.listener;
        if (l != null) {
            for (RequestImpl untaken : l.closeQueue()) {
                refuseQueued(untaken);
            }
            d.callbacks.execute(() -> l.closed.complete(null));
        }
    }

    /** One of an endpoint's two ids ended: end the other too; the endpoint is closed once both are. */
    private void retireEndpointId(IdDriver d) {
        DatagramEndpointImpl ep = d.endpoint;
        if (d.kind == IdDriver.Kind.DATAGRAM) {
            for (String g : List.copyOf(d.memberships.keySet())) {
                dropMembership(d, g);
            }
        }
        IdDriver other = d == ep.main ? ep.listener : ep.main;
        if (other != null && !other.retired) {
            if (!stopRequested) {
                closeQuietly(other);
            }
            return;
        }
        ep.main.callbacks.execute(() -> {
            ep.closed.complete(null);
            try {
                ep.handler.onClosed(ep);
            } catch (Throwable t) {
                datagramCallbackFailed(ep, t);
            }
        });
    }

    /**
     * An unexpected exception while driving one id (a bug): log it with the id's history, fail that
     * id's futures, free what can be freed without blocking, and keep the dispatcher going.
     */
    private void crash(IdDriver d, Throwable e) {
        LOG.log(Level.ERROR, d.name() + " failed inside the dispatcher; only this id is affected\n"
                + d.historySnapshot(), e);
        ConnectionFailedException ex = new ConnectionFailedException(d.name() + ": internal error: " + e,
                d.historySnapshot(), e);
        failAllOwed(d, ex);
        handler(d, (h, c) -> h.onError(c, ex));
        NativeId nid = d.nativeId;
        if (nid != null && !d.idDestroyed) {
            d.idDestroyed = true;
            try {
                port.quiesceCq(nid, () -> answer(() -> {
                    port.destroyQp(nid);
                    port.destroyCq(nid);
                    port.destroyCompChannel(nid);
                    port.destroyId(nid);
                }));
            } catch (RuntimeException again) {
                port.leak(nid, "crashed and could not be quiesced: " + again);
                d.leaked = true;
            }
        }
        retire(d);
    }

    // ------------------------------------------------------------------ policies

    private ConnectionPolicy activePolicy(ConnectOptions o) {
        return new ConnectionPolicy(config.defaultTransport(), o.deadlines(), o.retry(), o.tuning(),
                o.awaitTimewaitExit(), true, false, 3);
    }

    private static ConnectionPolicy passivePolicy(ListenOptions o, Transport transport) {
        Deadlines d = Deadlines.defaults();
        Deadlines deadlines = new Deadlines(d.connect(), d.resolveAddr(), d.resolveRoute(), o.decisionTimeout(),
                o.acceptTimeout(), d.disconnect(), d.timewait(), d.drain(), d.quiesce());
        return new ConnectionPolicy(transport, deadlines, RetryPolicy.never(), o.tuning(), false, true, false, 3);
    }

    /** The device's limits cap what the policy asks for (rdma_connect/rdma_accept fail with EINVAL beyond them). */
    static CmTuning clamp(CmTuning wanted, CmTuning device) {
        if (device == null) {
            return wanted;
        }
        return new CmTuning(Math.min(wanted.responderResources(), device.responderResources()),
                Math.min(wanted.initiatorDepth(), device.initiatorDepth()), wanted.retryCount(),
                wanted.rnrRetryCount());
    }

    @SuppressWarnings("unchecked")
    private static CmFuture<Object> cast(CmFuture<?> f) {
        return (CmFuture<Object>) f;
    }
}
