package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.rdmacm4j.cm.core.internal.Dispatcher;
import org.rdmacm4j.cm.core.internal.NativePort;
import org.rdmacm4j.cm.core.internal.loop.CallbackThreads;
import org.rdmacm4j.cm.core.internal.nativeport.VerbsCmPort;
import org.rdmacm4j.cm.core.internal.training.LoopbackPort;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.verbs.Rdma;
import org.rdmacm4j.verbs.RdmaException;

/**
 * The entry point: one rdma_cm event channel, one CM dispatcher thread that owns every
 * rdma_cm_id made through this instance, completion pollers, and a callback executor.
 *
 * <pre>{@code
 * try (RdmaCm cm = RdmaCm.open()) {
 *     RdmaListener l = cm.listen(new InetSocketAddress(addr, 7471), ListenOptions.defaults(),
 *             request -> request.accept(handler));
 *     RdmaConnection c = cm.connect(new InetSocketAddress(addr, 7471), ConnectOptions.defaults(), handler)
 *             .get(10, TimeUnit.SECONDS);
 *     c.close().get(5, TimeUnit.SECONDS);
 * }
 * }</pre>
 *
 * <p>Threads: every method may be called from any thread except that {@link #listen} and
 * {@link #close} block (bounded) and are refused on rdmacm4j's own dispatcher and poller threads,
 * as is {@code join()/get()} on one of its futures there.
 *
 * <p>Bad input is an {@link IllegalArgumentException} in the caller's thread before anything is
 * queued (a null address included; other null arguments are a {@link NullPointerException} naming
 * them); use after close is an
 * {@link IllegalStateException} naming this instance.
 *
 * <p>Longer than 400 lines because it also holds the connections over an in-memory port that the
 * background warm-up ({@link Builder#warmUp}) and the cold-start training ({@link ColdStart}) run:
 * they open an RdmaCm, and opening starts the warm-up, so in a file of their own they and this one
 * would use each other.
 */
public final class RdmaCm implements AutoCloseable {
    private final Dispatcher dispatcher;
    private final CallbackThreads ownedExecutor;
    private final Builder config;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final String name;
    /** Over a device (not a test's or the warm-up's in-memory port): its connects stand the warm-up down. */
    private final boolean overDevice;

    private RdmaCm(Builder b, NativePort port, String name) {
        this.config = b;
        this.name = name;
        this.overDevice = b.port == null;
        this.ownedExecutor = b.executor == null
                ? new CallbackThreads(name + "-callback")
                : null;
        Executor callbacks = b.executor != null ? b.executor : ownedExecutor;
        this.dispatcher = new Dispatcher(port, callbacks, System::nanoTime,
                new Dispatcher.Config(b.historySize, b.transport != null ? b.transport : port.defaultTransport(),
                        b.listenTimeout));
        dispatcher.start();
    }

    /**
     * Opens an instance with the defaults (one poller, the default callback threads, 10 s close).
     *
     * @throws RdmaUnavailableException if this machine or JVM cannot use RDMA at all (no device, no
     *         {@code rdma_ucm}, libraries or native access missing): its one-line message says what
     *         is missing and names the doctor ({@code examples/bin/doctor})
     */
    public static RdmaCm open() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Connects to {@code destination}. The future completes with the established connection, or
     * fails with a {@link RdmaCmException} subtype saying why (rejected, unreachable, timed out, ...).
     * Cancelling it aborts the attempt and frees everything it created.
     *
     * @throws IllegalArgumentException for an unresolved address or port 0
     * @throws IllegalStateException    after {@link #close()}
     */
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress destination, ConnectOptions options,
                                                     ConnectionHandler handler) {
        checkAddress(destination, "destination", false);
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(handler, "handler");
        ensureOpen();
        if (options.stepBarrier() != null) {
            options.stepBarrier().claim(this);
        }
        if (overDevice) {
            WarmUp.applicationConnects();
        }
        return dispatcher.connect(destination, options, handler);
    }

    /** {@link #connect(InetSocketAddress, ConnectOptions, ConnectionHandler)} with default options. */
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress destination, ConnectionHandler handler) {
        return connect(destination, ConnectOptions.defaults(), handler);
    }

    /**
     * Listens on {@code address} (port 0: any free port, see {@link RdmaListener#localAddress()});
     * every request goes to {@code handler}. Returns once the id listens.
     *
     * @throws RdmaCmException if the address cannot be bound or listened on (in use, not on an RDMA device)
     */
    public RdmaListener listen(InetSocketAddress address, ListenOptions options, RequestHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return listenInternal(address, options, handler);
    }

    /**
     * Pull form: requests wait for {@link RdmaListener#next()}.
     *
     * @throws IllegalArgumentException if {@code options} ask for {@link ListenOptions#decideOnDispatcher()},
     *     which needs a handler to run
     */
    public RdmaListener listen(InetSocketAddress address, ListenOptions options) {
        Objects.requireNonNull(options, "options");
        if (options.decideOnDispatcher()) {
            throw new IllegalArgumentException("decideOnDispatcher needs a RequestHandler: the pull form"
                    + " (listen without a handler) has nothing to run on the dispatcher");
        }
        return listenInternal(address, options, null);
    }

    private RdmaListener listenInternal(InetSocketAddress address, ListenOptions options, RequestHandler handler) {
        checkAddress(address, "address", true);
        Objects.requireNonNull(options, "options");
        ensureOpen();
        return dispatcher.listen(address, options, handler);
    }

    /**
     * Opens a UD datagram endpoint on {@code local} (a concrete address of an RDMA device; port 0:
     * any free port, see {@link DatagramEndpoint#localAddress()}). The endpoint answers SIDR requests
     * on that port, resolves peers with SIDR and joins multicast groups. Returns once its UD QP
     * exists (bounded like {@link #listen}).
     *
     * @throws IllegalArgumentException for a null, unresolved or wildcard address
     * @throws RdmaCmException          if the address cannot be bound (in use, not on an RDMA device)
     */
    public DatagramEndpoint openDatagram(InetSocketAddress local, DatagramOptions options, DatagramHandler handler) {
        checkAddress(local, "local", true);
        checkArgument(!local.getAddress().isAnyLocalAddress(),
                "local %s is a wildcard: a datagram endpoint needs the address of an RDMA device", local);
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(handler, "handler");
        ensureOpen();
        return dispatcher.openDatagram(local, options, handler);
    }

    /** Counters since open. */
    public CmStatistics statistics() {
        return dispatcher.statistics();
    }

    /** True if the dispatcher died (a bug): every pending future has failed, and new calls fail. */
    public boolean isBroken() {
        return dispatcher.brokenCause() != null;
    }

    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Closes every connection and listener (gracefully, or aborting if the builder said so), waits
     * for them up to the close timeout, frees every native object, stops the threads. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            dispatcher.shutdown(config.gracefulClose, config.closeTimeout);
        } catch (IllegalStateException refused) {
            closed.set(false);   // refused on a library thread: nothing was closed, a later close() must still work
            throw refused;
        }
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
            try {
                if (!ownedExecutor.awaitTermination(config.closeTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    System.getLogger("org.rdmacm4j.cm.core").log(System.Logger.Level.WARNING,
                            name + ": callbacks still running after close; not waiting for them");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return name + (closed.get() ? " [closed]" : "");
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private static void checkAddress(InetSocketAddress a, String what, boolean portZeroOk) {
        checkArgument(a != null, "%s must not be null", what);
        checkArgument(!a.isUnresolved(), "%s %s is unresolved: resolve the host name first", what, a);
        checkArgument(portZeroOk || a.getPort() != 0, "%s %s: port 0 cannot be connected to", what, a);
    }

    // ------------------------------------------------------------------ in-memory connections

    /** The longest any one step of the in-memory connections waits. */
    static final Duration LOOPBACK_WAIT = Duration.ofSeconds(30);
    private static final QpCapabilities SMALL_QP = new QpCapabilities(1, 1, 1, 1, 0, 2);

    /**
     * Sets up and closes {@code connections} connections one at a time through the public API, then
     * a refused connect, unless {@code stop} says so before a connection (then none more, and no
     * refused connect; before the first: nothing at all); returns how many were run. On an RdmaCm of
     * their own named {@code name} over an in-memory
     * {@link LoopbackPort}: listen, accept raw and with private data (every third), a reject (every
     * 50th), connect, close both ends. The paths applications take, on the real dispatcher and
     * machines, with no native call and nothing shared with any other RdmaCm. Any thread; the RdmaCm
     * is closed before it returns; every wait has a deadline ({@link #LOOPBACK_WAIT}).
     *
     * @throws IllegalStateException if a connection does not behave as over a healthy device, or
     *     the in-memory port is left with ids after the RdmaCm closed
     */
    static int loopbackConnections(int connections, String name, BooleanSupplier stop)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (stop.getAsBoolean()) {
            return 0;
        }
        int done = 0;
        LoopbackPort port = new LoopbackPort();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        InetSocketAddress at = new InetSocketAddress(loopback, 7471);
        InetSocketAddress from = new InetSocketAddress(loopback, 0);
        var accepted = new LinkedBlockingQueue<RdmaConnection>();
        try (RdmaCm cm = builder().port(port).name(name).closeTimeout(LOOPBACK_WAIT).build()) {
            AtomicInteger requests = new AtomicInteger();
            RdmaListener listener = cm.listen(at, ListenOptions.defaults(), r -> {
                int i = requests.getAndIncrement();
                if (i % 50 == 49) {
                    r.reject(new byte[] {1});
                } else {
                    AcceptOptions options = i % 3 == 0 ? AcceptOptions.withPrivateData(new byte[] {2}) : AcceptOptions.defaults();
                    r.accept(ConnectionHandler.none(), options.raw().qp(SMALL_QP)).thenAccept(accepted::add);
                }
            });
            ConnectOptions options = ConnectOptions.builder().raw().qp(SMALL_QP).source(from).build();
            for (int i = 0; i < connections && !stop.getAsBoolean(); i++, done++) {
                CompletableFuture<RdmaConnection> f = cm.connect(at, options, ConnectionHandler.none());
                if (i % 50 == 49) {
                    expectLoopbackFailure(f, ConnectionRejectedException.class);
                    continue;
                }
                RdmaConnection c = within(f);
                RdmaConnection s = accepted.poll(LOOPBACK_WAIT.toSeconds(), TimeUnit.SECONDS);
                if (s == null) {
                    throw new TimeoutException("connection " + i + " was never accepted");
                }
                c.history();
                within(c.close());
                within(s.closeFuture());
            }
            if (done == connections) {   // all of them ran: the refused connect too (stopped early: leave at once)
                InetSocketAddress nobody = new InetSocketAddress(loopback, 7472);
                expectLoopbackFailure(cm.connect(nobody, options, ConnectionHandler.none()),
                        ConnectionRejectedException.class);
                cm.statistics();
            }
            within(listener.close());
        }
        if (!port.isClosed() || port.liveIds() != 0) {
            throw new IllegalStateException("the in-memory RdmaCm left " + port.liveIds() + " ids"
                    + (port.isClosed() ? "" : " and its port open"));
        }
        return done;
    }

    /** The result of an in-memory step, waited for at most {@link #LOOPBACK_WAIT}. */
    private static <T> T within(CompletableFuture<T> f) throws InterruptedException, ExecutionException, TimeoutException {
        return f.get(LOOPBACK_WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static void expectLoopbackFailure(CompletableFuture<?> f, Class<? extends Throwable> expected)
            throws InterruptedException, TimeoutException {
        try {
            within(f);
            throw new IllegalStateException("expected " + expected.getSimpleName() + ", the connect succeeded");
        } catch (ExecutionException e) {
            if (!expected.isInstance(e.getCause())) {
                throw new IllegalStateException("expected " + expected.getSimpleName() + ", got " + e.getCause(), e);
            }
        }
    }

    /**
     * The background warm-up ({@link Builder#warmUp}): {@link #loopbackConnections} run by the
     * process's linker thread once it has linked, so that the dispatcher's, the machines' and the
     * API's Java has run once before the application's first connection.
     *
     * <p>Why: with the downcalls linked ahead, what a fresh JVM's first connection still pays once
     * is interpreting this code and resolving its call sites on first use (docs/benchmarks.md, "The
     * cold first connection, split", part (c)). JDK 25's AOT cache keeps loaded classes, not compiled
     * code or first-use work, so only running the code in the process removes it.
     *
     * <p>It stands down once an application's RdmaCm over a device calls connect
     * ({@link #applicationConnects}, from {@link RdmaCm#connect}): from then on the application's own
     * first connection runs the same code, and each loopback connection more only competes with it for
     * the CPUs. In the guest the warm-up's threads took 107-220 ms of CPU inside a first connection of
     * 169-339 ms, about as much as the application's dispatcher (docs/benchmarks.md, "Who runs beside
     * a first connection"). It looks before each of its connections, so at most one runs beside the
     * application's. A server's listen does not stand it down: its first request usually comes later.
     *
     * <p>Threads: {@link #run} on the linker thread only; it makes, uses and closes an RdmaCm of its
     * own and touches no other. {@link #applicationConnects} from any thread. A class, not a lambda: a
     * lambda's call site is linked at its first run.
     */
    static final class WarmUp implements Runnable {
        /** The first connections cost the most; four cover accept with and without private data. */
        static final int DEFAULT_CONNECTIONS = 4;

        /** Set by the first connect of an RdmaCm over a device in this process; never cleared. */
        private static volatile boolean applicationConnected;
        /** What the last warm-up did (for its test and a debugger), or null before one ended. */
        private static volatile Outcome outcome;

        private final int connections;
        private final BooleanSupplier standDown;

        /** The process's warm-up: it stands down once the application connects. */
        WarmUp(int connections) {
            this(connections, ApplicationConnected.INSTANCE);
        }

        /** A warm-up that stands down when {@code standDown} says so (tests). */
        WarmUp(int connections, BooleanSupplier standDown) {
            this.connections = connections;
            this.standDown = standDown;
        }

        /** An application's RdmaCm over a device is connecting: the warm-up runs no more connections. Any thread. */
        static void applicationConnects() {
            if (!applicationConnected) {   // one volatile write per process, a read per connect after it
                applicationConnected = true;
            }
        }

        @Override
        public void run() {
            long t0 = System.nanoTime();
            try {
                int done = loopbackConnections(connections, "rdmacm4j-warmup", standDown);
                outcome = new Outcome(connections, done, System.nanoTime() - t0, null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome = new Outcome(connections, 0, System.nanoTime() - t0, e);
            } catch (Exception | LinkageError e) {
                // Nothing here is the application's: its own connections run the same code in their
                // own context, and fail there with their own errors if anything is wrong.
                outcome = new Outcome(connections, 0, System.nanoTime() - t0, e);
                System.getLogger("org.rdmacm4j.cm.core").log(System.Logger.Level.DEBUG, "warm-up stopped", e);
            }
        }

        /**
         * "warmed up N connections in M ms", "stood down after D of N connections (the application
         * connects) in M ms" or "stopped: why"; null before a warm-up ended.
         */
        static String outcome() {
            Outcome o = outcome;
            return o == null ? null : o.toString();
        }

        /** Reads {@link #applicationConnected}: a named class, not a method reference (linked at its first run). */
        private static final class ApplicationConnected implements BooleanSupplier {
            static final ApplicationConnected INSTANCE = new ApplicationConnected();

            @Override
            public boolean getAsBoolean() {
                return applicationConnected;
            }
        }

        /**
         * Kept as values and spelled only when asked: the warm-up's end can fall inside the
         * application's first connection, and a string concatenation links a call site at its first
         * run (seen in the guest's lambda-form trace of that connection).
         */
        private record Outcome(int connections, int done, long nanos, Throwable failure) {
            @Override
            public String toString() {
                if (failure != null) {
                    return "stopped: " + failure;
                }
                long ms = nanos / 1_000_000;
                return done == connections ? "warmed up " + connections + " connections in " + ms + " ms"
                        : "stood down after " + done + " of " + connections
                                + " connections (the application connects) in " + ms + " ms";
            }
        }
    }

    /** Options of an RdmaCm. */
    public static final class Builder {
        private static final java.util.concurrent.atomic.AtomicInteger SERIAL =
                new java.util.concurrent.atomic.AtomicInteger();
        private int pollerThreads = 1;
        private Executor executor;
        private Duration closeTimeout = Duration.ofSeconds(10);
        private Duration listenTimeout = Duration.ofSeconds(10);
        private boolean gracefulClose = true;
        private int historySize = 32;
        private Transport transport;   // null: ask the devices (iWARP only if every device is iWARP)
        private boolean prelink = true;
        private int warmUpConnections = WarmUp.DEFAULT_CONNECTIONS;
        private Duration spareCqIdle = Duration.ofSeconds(1);
        private NativePort port;
        private String name;   // null: "rdmacm4j-" and a serial

        private Builder() { }

        /** Completion poller threads (default 1). */
        public Builder pollerThreads(int n) {
            checkArgument(n >= 1 && n <= 64, "pollerThreads must be in [1, 64], was %s", n);
            this.pollerThreads = n;
            return this;
        }

        /**
         * Where callbacks and future completions run (default: reused daemon worker threads, a new one
         * whenever none is idle so a blocking callback holds up no other connection, owned and shut
         * down by the RdmaCm). Callbacks of one connection stay ordered on any executor. An executor
         * that runs each task where it is given ({@code Runnable::run}) puts callbacks and dependent
         * stages on the dispatcher, as a C event loop reacts to events: they must then not block (a
         * blocking rdmacm4j call there throws IllegalStateException) and a slow one delays every
         * connection's events (docs/api.md).
         */
        public Builder callbackExecutor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** How long close() waits for connections to close before giving up on them (default 10 s). */
        public Builder closeTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "closeTimeout");
            checkArgument(!timeout.isNegative() && !timeout.isZero(), "closeTimeout must be positive, was %s", timeout);
            this.closeTimeout = timeout;
            return this;
        }

        /** close() disconnects gracefully (default) or aborts every connection. */
        public Builder gracefulClose(boolean graceful) {
            this.gracefulClose = graceful;
            return this;
        }

        /** Steps kept per id for history() and error messages (default 32). */
        public Builder historySize(int n) {
            checkArgument(n >= 0 && n <= 10_000, "historySize must be in [0, 10000], was %s", n);
            this.historySize = n;
            return this;
        }

        /**
         * The transport active connects assume before their device is known. Default: iWARP if every
         * RDMA device present is iWARP, else RoCE (the IB CM, which InfiniBand shares). Passive ids
         * always use their own device's transport.
         */
        public Builder transport(Transport t) {
            this.transport = Objects.requireNonNull(t, "transport");
            return this;
        }

        /**
         * Whether opening links, on a background daemon thread, the native functions of a connection's
         * life, setup and teardown (default true). A process links each function once, on its first call; under
         * JDK 25 that is 5-15 ms per function signature on a server core, and a first connection
         * reaches about ten signatures on the dispatcher. Linked ahead, where a core is free, the
         * first connection skips that work. Once per process: later instances find them linked.
         * Turn it off where start-up CPU matters more than the first connection's latency.
         */
        public Builder prelink(boolean prelink) {
            this.prelink = prelink;
            return this;
        }

        /**
         * How many connections the background thread of {@link #prelink} sets up and closes over an
         * in-memory port, on an RdmaCm of its own, once it has linked (default
         * {@value WarmUp#DEFAULT_CONNECTIONS}; 0 for none). They run the dispatcher, the state machines
         * and the API's Java once before the application's first connection does: a fresh JVM
         * interprets that code and resolves its call sites on first use, which otherwise falls on
         * the first real connection. No native call, no device, nothing shared with this instance;
         * with JFR recording, the warm-up's connections show as an RdmaCm named {@code
         * rdmacm4j-warmup}. Once per process, with the linker; nothing happens if prelink is off.
         */
        public Builder warmUp(int connections) {
            checkArgument(connections >= 0 && connections <= 1_000, "warmUp must be in [0, 1000], was %s", connections);
            this.warmUpConnections = connections;
            return this;
        }

        /**
         * How long the CQs of a burst of closed connections are kept for the next connections once
         * none is kept or taken (default 1 s). A device keeps the CQ of a connection that never
         * posted work (16 always; after a burst, up to 1,024 and never more than the burst had
         * open): a storm's teardown then destroys no CQ and the next storm creates none. After this
         * long without a CQ kept or taken, those beyond 16 go, 16 per dispatcher turn.
         * {@link Duration#ZERO}: at the next turn.
         */
        public Builder spareCqIdle(Duration idle) {
            Objects.requireNonNull(idle, "spareCqIdle");
            checkArgument(!idle.isNegative() && idle.compareTo(Duration.ofHours(1)) <= 0,
                    "spareCqIdle must be in [0, 1 h], was %s", idle);
            this.spareCqIdle = idle;
            return this;
        }

        /** Names the instance (its logs and JFR events); the warm-up's and the training's own. */
        Builder name(String n) {
            this.name = Objects.requireNonNull(n, "name");
            return this;
        }

        /** Test seam: drive the dispatcher against another native port. Not for applications. */
        Builder port(NativePort p) {
            this.port = p;
            return this;
        }

        /**
         * Opens the instance.
         *
         * @throws RdmaUnavailableException if this machine or JVM cannot use RDMA at all; its message
         *         says what is missing and names the doctor
         */
        public RdmaCm build() {
            String n = name != null ? name : "rdmacm4j-" + SERIAL.incrementAndGet();
            NativePort p = port != null ? port : openVerbsPort(n);
            return new RdmaCm(this, p, n);
        }

        private NativePort openVerbsPort(String name) {
            try {
                return VerbsCmPort.open(pollerThreads, name, prelink,
                        warmUpConnections > 0 ? new WarmUp(warmUpConnections) : null, spareCqIdle.toNanos());
            } catch (RdmaException | IllegalStateException | IllegalCallerException e) {
                RdmaUnavailableException unavailable = unavailable(e);
                if (unavailable == null) {
                    throw e;
                }
                throw unavailable;
            }
        }

        /**
         * Why opening the event channel failed, if it is because RDMA is not usable here (the verbs
         * module's probe says what is missing), else null: the failure is then thrown as it was.
         */
        private static RdmaUnavailableException unavailable(RuntimeException e) {
            Rdma.Probe probe;
            try {
                probe = Rdma.probe();
            } catch (RuntimeException probeFailed) {
                e.addSuppressed(probeFailed);
                probe = new Rdma.Probe(null, null);
            }
            if (probe.missing() == Rdma.Missing.NATIVE_ACCESS && e instanceof RdmaException r) {
                // The JVM only warned about native access (the default): the native call ran and
                // failed, so native access is not what is missing; the device file is.
                boolean cmFile = java.nio.file.Files.exists(java.nio.file.Path.of("/dev/infiniband/rdma_cm"));
                return new RdmaUnavailableException(cmFile ? RdmaUnavailableException.Missing.ACCESS
                        : RdmaUnavailableException.Missing.DEVICE, r.getMessage() + (cmFile
                        ? " (/dev/infiniband/rdma_cm is there: is it readable and writable by this user?)"
                        : ": /dev/infiniband/rdma_cm does not exist (no RDMA device, or rdma_ucm not loaded:"
                        + " modprobe rdma_ucm; a soft-RoCE device: rdma link add rxe0 type rxe netdev <ifname>)"), e);
            }
            if (!probe.available()) {
                RdmaUnavailableException.Missing m = switch (probe.missing()) {
                    case NATIVE_ACCESS -> RdmaUnavailableException.Missing.NATIVE_ACCESS;
                    case LIBRARY -> RdmaUnavailableException.Missing.LIBRARY;
                    case DEVICE -> RdmaUnavailableException.Missing.DEVICE;
                };
                return new RdmaUnavailableException(m, probe.cause(), e);
            }
            // Devices are there, yet the channel did not open: /dev/infiniband/rdma_cm gone or not ours.
            if (e instanceof RdmaException r && r.function().equals("rdma_create_event_channel")
                    && (r.errno() == 19 || r.errno() == 2 || r.errno() == 13 || r.errno() == 1)) {
                return new RdmaUnavailableException(RdmaUnavailableException.Missing.ACCESS, r.getMessage()
                        + " opening /dev/infiniband/rdma_cm (load rdma_ucm: modprobe rdma_ucm; make the device files"
                        + " readable and writable: the rdma-core package's udev rules do)", e);
            }
            return null;
        }
    }
}
