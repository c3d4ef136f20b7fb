package org.rdmacm4j.benchmarks;

import static com.google.common.base.Preconditions.checkArgument;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RegisteredRegion;
import org.rdmacm4j.cm.core.RemoteRegion;
import org.rdmacm4j.cm.core.RequestHandler;

/**
 * The rdmacm4j side of the benchmarks that have no rdmacm4j twin among the examples, each the
 * same workload as its C counterpart ({@code benchmarks/src/main/c/cm_event_loop.c}, {@code
 * ib_write_bw -R}) through the public API only: one RdmaCm holds a listener on SERVER:PORT and the
 * connections from CLIENT to it, so both ends live in this process, as in the C program.
 * <ul>
 * <li>{@code storm SERVER CLIENT PORT N}: N raw RC connections (cmtime's QP capabilities) started at
 *     once, then all closed by the client; prints {@code events E seconds S events/s R}, E = the
 *     CM events the dispatcher handled ({@link org.rdmacm4j.cm.core.CmStatistics#cmEvents()}).</li>
 * <li>{@code latency SERVER CLIENT PORT K}: K connections one at a time, each closed before the next;
 *     prints {@code latency_us I T}, T = connect() called to its future completed (I = 0 is cold), and
 *     the last connection's history (both ends: each state-machine step with its elapsed time).</li>
 * <li>{@code warm SERVER CLIENT PORT K FROM N}: issue 21's warm figures in one process, the twin of
 *     {@code cm_event_loop warm}: K lone connections as in latency, then a storm of N set up and torn
 *     down ({@code storm n N setup_s S teardown_s T}: first connect() to the last end established,
 *     first close() to the last end closed). A {@link Window} over connections FROM..K prints the
 *     process's CPU time and its threads' run and run-queue wait per connection and switches perf on
 *     and off around them; {@code BENCH_WINDOW_STORM=1} puts the window around the storm instead ({@code =setup}, {@code =teardown}: one half of it). A
 *     window of at most 5 lone connections also prints each one's caller-side monotonic
 *     timestamps ({@code mark ...}) and both ends' histories, for the timeline. With
 *     {@code -Drdmacm4j.bench.driver=callbacks} the lone connections are driven from their own
 *     callbacks on the dispatcher ({@link LoneChain}, a direct callback executor) and the storm's
 *     ends counted by callbacks ({@link StormChain}), the shape of C's loop; the default is a
 *     blocking caller.</li>
 * <li>{@code writebw SERVER CLIENT PORT SIZE COUNT WINDOW}: COUNT RDMA WRITEs of SIZE bytes, WINDOW in
 *     flight; prints {@code MB/s X} (10^6 bytes per second, as ib_write_bw).</li>
 * <li>{@code pingpong server BIND PORT SIZE | pingpong client SERVER BIND PORT SIZE WARMUP COUNT}: the
 *     message round trip, server and client in two processes ({@link PingPong}).</li>
 * <li>{@code memory SERVER CLIENT PORT N1,N2,... SECONDS}: opens connections in batches of 250 up to
 *     each N, and at each N prints heap used after a full GC, the process's RSS and the kernel's
 *     Slab, as deltas from before the first connection, per connection; stops early (saying so) at
 *     the time budget or the first failure, reporting the largest count reached.</li>
 * </ul>
 * Every wait has a deadline; a failure exits non-zero with the reason.
 */
public final class CmBench {
    private static final QpCapabilities CMTIME_QP = new QpCapabilities(1, 1, 1, 1, 0, 2);
    private static final long WAIT_S = 120;

    private CmBench() { }

    public static void main(String[] args) throws Exception {
        phase("main");
        InsnMark.prepare();
        Window.prepare();
        if (args.length > 0 && args[0].equals("pingpong")) {   // two processes, its own arguments
            PingPong.main(args);
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("train")) {   // the build's AOT cache (aot-cache.sh): no device
            System.out.println(org.rdmacm4j.cm.core.ColdStart.train(args.length > 1 ? positive(args[1]) : 200));
            System.exit(0);
        }
        if (args.length < 5) {
            usage();
        }
        InetAddress server = InetAddress.getByName(args[1]);
        InetAddress client = InetAddress.getByName(args[2]);
        int port = Integer.parseInt(args[3]);
        var at = new InetSocketAddress(server, port);
        var from = new InetSocketAddress(client, 0);
        switch (args[0]) {
            case "storm" -> storm(at, from, positive(args[4]));
            case "latency" -> latency(at, from, positive(args[4]));
            case "warm" -> {
                if (args.length != 7) {
                    usage();
                }
                warm(at, from, positive(args[4]), positive(args[5]), positive(args[6]));
            }
            case "writebw" -> {
                if (args.length != 7) {
                    usage();
                }
                writeBandwidth(at, from, positive(args[4]), positive(args[5]), positive(args[6]));
            }
            case "memory" -> {
                if (args.length != 6) {
                    usage();
                }
                int[] targets = Arrays.stream(args[4].split(",")).mapToInt(CmBench::positive).toArray();
                memory(at, from, targets, positive(args[5]));
            }
            default -> usage();
        }
        System.exit(0);
    }

    private static void usage() {
        System.err.println("usage: CmBench storm|latency SERVER CLIENT PORT N | warm SERVER CLIENT PORT K FROM N | writebw SERVER CLIENT PORT SIZE COUNT WINDOW"
                + " | memory SERVER CLIENT PORT N1,N2,... SECONDS"
                + " | pingpong server BIND PORT SIZE | pingpong client SERVER BIND PORT SIZE WARMUP COUNT | train [CONNECTIONS]");
        System.exit(2);
    }

    /**
     * {@code phase NAME EPOCH_US}: the wall clock at a point of a cold run (main entered, RdmaCm
     * open, listening, first connection), for the start-to-first-connection split that
     * guest-driver.sh's cold group takes against the time it launched the JVM.
     */
    private static void phase(String name) {
        java.time.Instant now = java.time.Instant.now();
        System.out.printf("phase %s %d%n", name, now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000);
    }

    private static int positive(String s) {
        int n = Integer.parseInt(s);
        checkArgument(n >= 1, "expected a positive number, was %s", s);
        return n;
    }

    private static ConnectOptions raw(InetSocketAddress from) {
        return ConnectOptions.builder().raw().qp(CMTIME_QP).source(from).build();
    }

    /**
     * Whether the benchmark listeners decide on the dispatcher ({@link ListenOptions#withDecisionOnDispatcher}),
     * as the C programs accept inside their event loop: {@code -Drdmacm4j.bench.decision=dispatcher}
     * (the default) or {@code executor} (the callback executor, the library's default) for an A/B.
     */
    static final boolean DECIDE_ON_DISPATCHER = decisionOnDispatcher();

    static boolean decisionOnDispatcher() {
        String d = System.getProperty("rdmacm4j.bench.decision", "dispatcher");
        return switch (d) {
            case "dispatcher" -> true;
            case "executor" -> false;
            default -> throw new IllegalArgumentException("rdmacm4j.bench.decision must be dispatcher or executor, not " + d);
        };
    }

    /**
     * An RdmaCm as the benchmarks open it: with the library's background linker
     * ({@link RdmaCm.Builder#prelink}) unless {@code -Drdmacm4j.bench.prelink=off}, and its
     * warm-up's default number of connections unless {@code -Drdmacm4j.bench.warmup=N} (for A/Bs).
     */
    static RdmaCm openRdmaCm() {
        String p = System.getProperty("rdmacm4j.bench.prelink", "on");
        boolean prelink = switch (p) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("rdmacm4j.bench.prelink must be on or off, not " + p);
        };
        RdmaCm.Builder b = RdmaCm.builder().prelink(prelink);
        String w = System.getProperty("rdmacm4j.bench.warmup");
        if (w != null) {
            b.warmUp(Integer.parseInt(w));
        }
        Executor callbacks = callbackExecutor();
        if (callbacks != null) {
            b.callbackExecutor(callbacks);
        }
        return b.build();
    }

    /** Callback tasks given to a {@code counted} executor (printed at exit as {@code callback_tasks N}). */
    private static final AtomicLong CALLBACK_TASKS = new AtomicLong();

    /**
     * The callback executor for an A/B of its cost, {@code -Drdmacm4j.bench.callbacks=}: {@code library}
     * (the default: the RdmaCm's own, a virtual thread per task), {@code counted} (a virtual thread per
     * task as the JDK's executor makes them, counting the tasks, printed at exit), {@code platform}
     * (one platform thread fed by a blocking queue: parks without spinning, runs callbacks one at a
     * time). Null for the library's own. The executors given here are never shut down: their threads
     * are daemons and the process ends with the benchmark.
     */
    private static Executor callbackExecutor() {
        String c = System.getProperty("rdmacm4j.bench.callbacks", DRIVE_FROM_CALLBACKS ? "direct" : "library");
        checkArgument(!DRIVE_FROM_CALLBACKS || c.equals("direct"),
                "rdmacm4j.bench.driver=callbacks runs its callbacks where they are given (callbacks=direct), not %s", c);
        return switch (c) {
            case "library" -> null;
            case "direct" -> new Direct();
            case "counted" -> {
                Executor virtual = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("bench-callback").factory());
                Runtime.getRuntime().addShutdownHook(new Thread(
                        () -> System.out.println("callback_tasks " + CALLBACK_TASKS.get())));
                yield task -> {
                    CALLBACK_TASKS.incrementAndGet();
                    virtual.execute(task);
                };
            }
            case "platform" -> Executors.newSingleThreadExecutor(
                    Thread.ofPlatform().name("bench-callback").daemon(true).factory());
            default -> throw new IllegalArgumentException(
                    "rdmacm4j.bench.callbacks must be library, direct, counted or platform, not " + c);
        };
    }

    /**
     * Runs each callback task where it is given: on the dispatcher for what the dispatcher completes
     * (docs/api.md, "Where callbacks and future completions run": the application's choice, its
     * callbacks must not block). A named class: no lambda spun at the first callback.
     */
    private static final class Direct implements Executor {
        @Override
        public void execute(Runnable task) {
            task.run();
        }
    }

    /**
     * How the warm group's lone connections are driven, {@code -Drdmacm4j.bench.driver=}: {@code caller}
     * (the default: the main thread connects, waits for the future, takes the accepted end, closes and
     * waits for both ends, as an application's blocking caller does) or {@code callbacks} (each
     * connection started from the callback that saw the one before it closed, on the dispatcher with
     * a direct callback executor, as C's event loop reacts to events: {@link LoneChain}; the storms'
     * ends counted by callbacks, {@link StormChain}).
     */
    static final boolean DRIVE_FROM_CALLBACKS = driveFromCallbacks();

    static boolean driveFromCallbacks() {
        String d = System.getProperty("rdmacm4j.bench.driver", "caller");
        return switch (d) {
            case "caller" -> false;
            case "callbacks" -> true;
            default -> throw new IllegalArgumentException("rdmacm4j.bench.driver must be caller or callbacks, not " + d);
        };
    }

    /** A listener that accepts every request raw with cmtime's QP and collects the accepted ends. */
    private static RdmaListener acceptAll(RdmaCm cm, InetSocketAddress at, int pending,
                                          java.util.Queue<RdmaConnection> accepted) {
        return acceptAll(cm, at, pending, new Routed(accepted));
    }

    /** As above, the accepted ends given to {@code ends}. */
    private static RdmaListener acceptAll(RdmaCm cm, InetSocketAddress at, int pending, Routed ends) {
        return cm.listen(at, ListenOptions.defaults().withBacklog(Math.max(128, pending))
                .withMaxPendingRequests(Math.max(128, pending)).withDecisionOnDispatcher(DECIDE_ON_DISPATCHER),
                new AcceptInto(ends));
    }

    /**
     * Where the accepted ends go: to {@code chain} while one is set (a {@link LoneChain} segment or a
     * {@link StormChain} storm), else into the queue the caller-driven loops take them from.
     */
    private static final class Routed implements java.util.function.Consumer<RdmaConnection> {
        private final java.util.Queue<RdmaConnection> queue;
        private volatile java.util.function.Consumer<RdmaConnection> chain;

        Routed(java.util.Queue<RdmaConnection> queue) {
            this.queue = queue;
        }

        void chain(java.util.function.Consumer<RdmaConnection> to) {
            chain = to;
        }

        @Override
        public void accept(RdmaConnection c) {
            var to = chain;
            if (to != null) {
                to.accept(c);
            } else {
                queue.add(c);
            }
        }
    }

    /**
     * Accepts every request with cmtime's QP and queues the accepted end: a named class, not a
     * lambda and a method reference, which a process spun at its first request, inside the cold
     * group's first connection (s36-cold-ab1's traces).
     */
    private record AcceptInto(Routed accepted) implements RequestHandler,
            java.util.function.Consumer<RdmaConnection> {
        private static final AcceptOptions OPTIONS = AcceptOptions.defaults().raw().qp(CMTIME_QP);

        @Override
        public void onRequest(ConnectionRequest r) {
            r.accept(ConnectionHandler.none(), OPTIONS).thenAccept(this);
        }

        @Override
        public void accept(RdmaConnection c) {
            accepted.accept(c);
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return Waits.await(f, WAIT_S);
    }

    private static void storm(InetSocketAddress at, InetSocketAddress from, int n) throws Exception {
        var accepted = new LinkedBlockingQueue<RdmaConnection>();
        var ends = new Routed(accepted);
        try (RdmaCm cm = openRdmaCm()) {
            RdmaListener l = acceptAll(cm, at, n, ends);
            long events0 = cm.statistics().cmEvents();
            long[] t = reported("storm", l, cm, () -> DRIVE_FROM_CALLBACKS
                    ? stormChained(cm, at, raw(from), n, ends, StormWindow.NONE)
                    : stormOnce(cm, at, raw(from), n, accepted, StormWindow.NONE));
            long events = cm.statistics().cmEvents() - events0;
            double s = (t[0] + t[1]) / 1e9;
            System.out.printf("events %d seconds %.6f events/s %.1f%n", events, s, events / s);
            System.out.println("statistics " + cm.statistics());
            System.out.printf("storm n %d setup_s %.6f teardown_s %.6f%n", n, t[0] / 1e9, t[1] / 1e9);
            await(l.close());
        }
    }

    /**
     * {@code storm}'s result; if it throws, the failure report first ({@link Waits#printFailure}: in a
     * storm the counters say more than the listener's last entries, requests received against
     * connects started and accepts).
     */
    private static long[] reported(String what, RdmaListener l, RdmaCm cm, Callable<long[]> storm) throws Exception {
        try {
            return storm.call();
        } catch (Exception e) {
            Waits.printFailure(what, e, l, cm);
            throw e;
        }
    }

    /** Where {@code BENCH_WINDOW_STORM} puts the warm run's window: 1 the whole storm, setup or teardown one half. */
    private enum StormWindow {
        NONE, WHOLE, SETUP, TEARDOWN;

        static StormWindow of(String env) {
            return env == null ? NONE : switch (env) {
                case "1" -> WHOLE;
                case "setup" -> SETUP;
                case "teardown" -> TEARDOWN;
                default -> NONE;
            };
        }
    }

    /**
     * N connections started at once, then all closed by the client; {setup, teardown} ns: the first
     * connect() to the last end established (client future and accepted end), then the first close()
     * to the last end closed. {@code accepted} is empty before and after.
     */
    private static long[] stormOnce(RdmaCm cm, InetSocketAddress at, ConnectOptions options, int n,
                                    BlockingQueue<RdmaConnection> accepted, StormWindow window) throws Exception {
        Window w = window == StormWindow.WHOLE || window == StormWindow.SETUP ? Window.open() : null;
        long t0 = System.nanoTime();
        List<CompletableFuture<RdmaConnection>> connects = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            connects.add(cm.connect(at, options, ConnectionHandler.none()));
        }
        List<CompletableFuture<Void>> closed = new ArrayList<>(2 * n);
        for (CompletableFuture<RdmaConnection> c : connects) {
            closed.add(await(c).closeFuture());
        }
        for (int i = 0; i < n; i++) {   // the accept futures complete on the dispatcher just after ESTABLISHED
            closed.add(take(accepted, "storm connection", i).closeFuture());
        }
        long t1 = System.nanoTime();
        if (window == StormWindow.SETUP) {
            w.close(n);
        } else if (window == StormWindow.TEARDOWN) {
            w = Window.open();
        }
        for (CompletableFuture<RdmaConnection> c : connects) {
            c.join().close();
        }
        await(CompletableFuture.allOf(closed.toArray(CompletableFuture[]::new)));
        long t2 = System.nanoTime();
        if (window == StormWindow.WHOLE || window == StormWindow.TEARDOWN) {
            w.close(n);
        }
        return new long[] {t1 - t0, t2 - t1};
    }

    /**
     * {@link #stormOnce}'s storm with its ends counted by callbacks ({@link StormChain}): the caller
     * starts the N connects and waits once for all 2N ends, then closes the N client ends and waits
     * once for all 2N closed; {setup, teardown} ns as stormOnce measures them.
     */
    private static long[] stormChained(RdmaCm cm, InetSocketAddress at, ConnectOptions options, int n,
                                       Routed ends, StormWindow window) throws Exception {
        var storm = new StormChain(cm, at, options, n);
        ends.chain(storm.serverEnds());
        try {
            Window w = window == StormWindow.WHOLE || window == StormWindow.SETUP ? Window.open() : null;
            long t0 = System.nanoTime();
            storm.setUp(WAIT_S);
            long t1 = System.nanoTime();
            if (window == StormWindow.SETUP) {
                w.close(n);
            } else if (window == StormWindow.TEARDOWN) {
                w = Window.open();
            }
            storm.tearDown(WAIT_S);
            long t2 = System.nanoTime();
            if (window == StormWindow.WHOLE || window == StormWindow.TEARDOWN) {
                w.close(n);
            }
            return new long[] {t1 - t0, t2 - t1};
        } finally {
            ends.chain(null);
        }
    }

    /** One lone connection, both ends closed before it returns; {connect called, connected, close called, closed (both ends)} ns. */
    private static long[] lone(RdmaCm cm, InetSocketAddress at, ConnectOptions options,
                               BlockingQueue<RdmaConnection> accepted, int i, boolean histories)
            throws Exception {
        long t0 = System.nanoTime();
        RdmaConnection c = await(cm.connect(at, options, ConnectionHandler.none()));
        long t1 = System.nanoTime();
        RdmaConnection s = take(accepted, "connection", i);
        long t2 = System.nanoTime();
        await(c.close());
        await(s.closeFuture());
        long t3 = System.nanoTime();
        if (histories) {
            c.history().forEach(e -> System.out.println("history " + i + " client " + e));
            s.history().forEach(e -> System.out.println("history " + i + " server " + e));
        }
        return new long[] {t0, t1, t2, t3};
    }

    /**
     * The next accepted end, waited for WAIT_S at most (parked, not polled: no timer syscalls of ours).
     * The failure names {@code what} {@code i}, built only on failure: a message concatenated per
     * connection was 13 % of the main thread's Java time inside the measured window (s36-interp).
     */
    private static RdmaConnection take(BlockingQueue<RdmaConnection> accepted, String what, int i) throws Exception {
        RdmaConnection s = accepted.poll(WAIT_S, TimeUnit.SECONDS);
        if (s == null) {
            throw new IllegalStateException(what + " " + i + " was never accepted (none within " + WAIT_S + " s)");
        }
        return s;
    }

    private static void warm(InetSocketAddress at, InetSocketAddress from, int k, int windowFrom, int n)
            throws Exception {
        checkArgument(windowFrom <= k, "FROM (%s) must be at most K (%s)", windowFrom, k);
        StormWindow stormWindow = StormWindow.of(System.getenv("BENCH_WINDOW_STORM"));
        boolean windowOnStorm = stormWindow != StormWindow.NONE;
        boolean marks = !windowOnStorm && k - windowFrom + 1 <= 5;
        var accepted = new LinkedBlockingQueue<RdmaConnection>();
        var ends = new Routed(accepted);
        try (RdmaCm cm = openRdmaCm()) {
            RdmaListener l = acceptAll(cm, at, n, ends);
            ConnectOptions options = raw(from);
            Window w = null;
            // Each connection's times are kept and printed once the lone connections are done, not
            // per connection: System.out flushes every piece of a printf (five write(2)s per line,
            // each a 9p round trip to the host in the guest), which cost the main thread CPU,
            // syscalls and context switches inside the measured window, where C's printf only fills
            // a stdio buffer.
            long[][] times = new long[k][];
            int done = 0;
            try {
                if (DRIVE_FROM_CALLBACKS) {
                    done = chained(cm, at, options, ends, times, k, windowOnStorm ? k + 1 : windowFrom);
                }
                for (int i = done; i < k; i++) {
                    if (i == windowFrom - 1 && !windowOnStorm) {
                        w = Window.open();
                    }
                    times[i] = lone(cm, at, options, accepted, i, marks && w != null);
                    done = i + 1;
                }
                if (w != null) {
                    w.close(k - windowFrom + 1);
                }
            } catch (Exception e) {
                Waits.printFailure("lone connection " + done, e, l, cm);
                throw e;
            } finally {
                printLone(times, done, marks ? windowFrom - 1 : k);
            }
            long[] t = reported("warm storm", l, cm, () -> DRIVE_FROM_CALLBACKS
                    ? stormChained(cm, at, options, n, ends, stormWindow)
                    : stormOnce(cm, at, options, n, accepted, stormWindow));
            System.out.printf("storm n %d setup_s %.6f teardown_s %.6f%n", n, t[0] / 1e9, t[1] / 1e9);
            await(l.close());
        }
    }

    /**
     * The warm group's K lone connections driven from callbacks ({@link LoneChain}): connections
     * before {@code windowFrom}, then the window's (opened and closed on this thread, between two
     * segments); returns K. A failure names the connection; {@code times} holds those that finished.
     */
    private static int chained(RdmaCm cm, InetSocketAddress at, ConnectOptions options, Routed ends,
                               long[][] times, int k, int windowFrom) throws Exception {
        var chain = new LoneChain(cm, at, options, times);
        ends.chain(chain.serverEnds());
        try {
            int first = Math.min(windowFrom - 1, k);
            chain.run(0, first, WAIT_S);
            if (first < k) {
                Window w = Window.open();
                chain.run(first, k, WAIT_S);
                w.close(k - first);
            }
            System.out.println("chain stages_on_caller " + chain.stagesOnCaller() + " of " + 4L * k);
            return k;
        } finally {
            ends.chain(null);
        }
    }

    /** The lone connections' lines: latency_us of each, and the marks of those from {@code marksFrom} on. */
    private static void printLone(long[][] times, int done, int marksFrom) {
        var out = new StringBuilder(done * 24);
        for (int i = 0; i < done; i++) {
            long[] t = times[i];
            out.append(String.format("latency_us %d %.1f%n", i, (t[1] - t[0]) / 1e3));
            if (i >= marksFrom) {
                out.append(String.format("mark %d connect_call_ns %d connected_ns %d close_call_ns %d closed_ns %d%n",
                        i, t[0], t[1], t[2], t[3]));
            }
        }
        System.out.print(out);
        System.out.flush();
    }

    private static void latency(InetSocketAddress at, InetSocketAddress from, int k) throws Exception {
        var accepted = new ConcurrentLinkedQueue<RdmaConnection>();
        try (RdmaCm cm = openRdmaCm()) {
            phase("opened");
            RdmaListener l = acceptAll(cm, at, 1, accepted);
            phase("listening");
            ConnectOptions options = raw(from);
            // A/B diagnostic: -Drdmacm4j.bench.pauseMs=N sleeps N ms before the first connection, so
            // that it starts after the background linker, its warm-up and C1's queue are done.
            long pauseMs = Long.getLong("rdmacm4j.bench.pauseMs", 0L);
            // -Drdmacm4j.bench.jfr=FILE (with a pause, which covers JFR's own start): the first
            // connection's execution samples (JfrWindow).
            JfrWindow jfr = JfrWindow.startIfAsked();
            if (pauseMs > 0) {
                Thread.sleep(pauseMs);
                phase("paused");
            }
            for (int i = 0; i < k; i++) {
                long t0 = System.nanoTime();
                RdmaConnection c = await(cm.connect(at, options, ConnectionHandler.none()));
                long t1 = System.nanoTime();
                System.out.printf("latency_us %d %.1f%n", i, (t1 - t0) / 1e3);
                if (i == 0) {
                    phase("connected");
                    if (jfr != null) {
                        jfr.close();
                    }
                }
                await(c.close());
                // Where the first (coldest) and the last (warmest) connection spent their time, step
                // by step; printed after each connection's timings, outside them. The first's are
                // "history0": the cold group's split of connect() to established (docs/benchmarks.md).
                String tag = i == 0 ? "history0 " : "history ";
                if (i == 0 || i == k - 1) {
                    c.history().forEach(e -> System.out.println(tag + "client " + e));
                }
                RdmaConnection s = Waits.nextAccepted(accepted, i, WAIT_S);
                await(s.closeFuture());
                if (i == 0 || i == k - 1) {
                    s.history().forEach(e -> System.out.println(tag + "server " + e));
                }
            }
            await(l.close());
        }
    }

    private static void writeBandwidth(InetSocketAddress at, InetSocketAddress from, int size, int count, int window)
            throws Exception {
        try (RdmaCm cm = openRdmaCm(); Arena arena = Arena.ofShared()) {
            MemorySegment target = arena.allocate(size, 4096);
            var advertised = new CompletableFuture<RemoteRegion>();
            RdmaListener l = cm.listen(at, ListenOptions.defaults(), r -> r.accept(ConnectionHandler.none())
                    .thenAccept(s -> advertised.complete(s.register(target).toRemote())));
            // the one-sided depth follows the window, as ib_write_bw -t sizes its send queue
            RdmaConnection c = await(cm.connect(at, ConnectOptions.builder().source(from)
                    .qp(QpCapabilities.defaults().withOneSidedDepth(window)).build(), ConnectionHandler.none()));
            RemoteRegion remote = await(advertised);
            RegisteredRegion local = c.register(arena.allocate(size, 4096));
            var inFlight = new java.util.ArrayDeque<CompletableFuture<Void>>(window);
            long t0 = System.nanoTime();
            for (int i = 0; i < count; i++) {
                if (inFlight.size() == window) {
                    await(inFlight.poll());
                }
                inFlight.add(c.write(local, 0, remote, 0, size));
            }
            while (!inFlight.isEmpty()) {
                await(inFlight.poll());
            }
            double s = (System.nanoTime() - t0) / 1e9;
            System.out.printf("MB/s %.2f (%d writes of %d bytes, %d in flight, %.3f s)%n",
                    (double) count * size / s / 1e6, count, size, window, s);
            local.close();
            await(c.close());
            await(l.close());
        }
    }

    private static void memory(InetSocketAddress at, InetSocketAddress from, int[] targets, int seconds)
            throws Exception {
        var accepted = new ConcurrentLinkedQueue<RdmaConnection>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try (RdmaCm cm = openRdmaCm()) {
            RdmaListener l = acceptAll(cm, at, 250, accepted);
            ConnectOptions options = raw(from);
            // Warm the path once so the baseline holds the classes and code every connection uses.
            await(await(cm.connect(at, options, ConnectionHandler.none())).close());
            Thread.sleep(200);
            accepted.forEach(RdmaConnection::close);
            accepted.clear();
            long[] base = sample();
            List<RdmaConnection> live = new ArrayList<>();
            String stop = null;
            for (int target : targets) {
                while (live.size() < target && stop == null) {
                    if (System.nanoTime() > deadline) {
                        stop = "time budget of " + seconds + " s spent";
                        break;
                    }
                    int batch = Math.min(250, target - live.size());
                    List<CompletableFuture<RdmaConnection>> cs = new ArrayList<>(batch);
                    for (int i = 0; i < batch; i++) {
                        cs.add(cm.connect(at, options, ConnectionHandler.none()));
                    }
                    for (CompletableFuture<RdmaConnection> c : cs) {
                        try {
                            live.add(await(c));
                        } catch (ExecutionException | IllegalStateException e) {
                            stop = "connection " + (live.size() + 1) + " failed: " + e.getMessage().lines().findFirst().orElse("");
                        }
                    }
                }
                long wait = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (accepted.size() < live.size() && System.nanoTime() < wait) {
                    Thread.sleep(10);
                }
                int n = live.size();
                if (n == 0) {
                    break;
                }
                long[] now = sample();
                System.out.printf("memory connections %d accepted %d heap_bytes_per_conn %.0f rss_bytes_per_conn %.0f"
                        + " native_bytes_per_conn %.0f slab_bytes_per_conn %.0f target %d%s%n", n, accepted.size(),
                        (now[0] - base[0]) / (double) n, (now[1] - base[1]) / (double) n,
                        ((now[1] - now[2]) - (base[1] - base[2])) / (double) n, (now[3] - base[3]) / (double) n,
                        target, stop == null ? "" : " stopped: " + stop);
                if (stop != null) {
                    break;
                }
            }
            List<CompletableFuture<Void>> closes = new ArrayList<>();
            live.forEach(c -> closes.add(c.close()));
            accepted.forEach(c -> closes.add(c.closeFuture()));
            await(CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)));
            await(l.close());
        }
    }

    /** {heap used after GC, RSS, heap committed, kernel Slab}, bytes. */
    private static long[] sample() throws IOException, InterruptedException {
        System.gc();
        Thread.sleep(100);
        System.gc();
        var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return new long[] {heap.getUsed(), kib(Path.of("/proc/self/status"), "VmRSS:"), heap.getCommitted(),
            kib(Path.of("/proc/meminfo"), "Slab:")};
    }

    private static long kib(Path file, String key) throws IOException {
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith(key)) {
                return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]) * 1024;
            }
        }
        throw new IllegalStateException(key + " not in " + file);
    }
}
