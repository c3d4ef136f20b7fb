package org.rdmacm4j.benchmarks;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ColdStart;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.verbs.Rdma;

/**
 * The cold first connection split (issue 21 part 3): {@code ColdSplit VARIANT SERVER CLIENT PORT
 * [K]} in a fresh JVM does one of four things before {@code RdmaCm.open()}, then makes K (default
 * 3) connections one at a time exactly as {@code CmBench latency} (one RdmaCm, a listener on
 * SERVER:PORT deciding on the dispatcher and accepting raw with cmtime's QP, connections from CLIENT,
 * each closed at both ends before the next), timing each connect() to its future completed. The
 * variants are the three steps of {@link ColdStart#train} taken apart:
 * <ul>
 * <li>{@code plain}: nothing (what CmBench latency's first connection measures);</li>
 * <li>{@code prelinked}: {@link Rdma#linkAll()}, train's first step: every downcall handle of the
 *     bindings linked (a superset of the connect path's), none called;</li>
 * <li>{@code trained}: train's other two steps without the linking: ColdStart's class loading and
 *     its N (default 200) connections over the in-memory port (called by reflection, they are
 *     private; no downcall is linked, which the {@code linked_functions} figure shows);</li>
 * <li>{@code trained-prelinked}: {@code ColdStart.train(N)} itself (all three steps).</li>
 * </ul>
 * Prints {@code phase NAME EPOCH_US NANOTIME} at main, after the variant's step, open, listening
 * and each connection, and {@code window NAME key value ...} for the step, open, listen and each
 * connection: wall ms, this process's CPU (/proc/self/stat, 10 ms ticks) and the C1 compiler
 * threads' share of it, and the JVM's own counters read from its hsperfdata file (classes loaded,
 * of which from the CDS archive or AOT cache, classes initialised and their static initialisers'
 * time, class load/link/verify time, JIT compile time and count), plus the downcall functions linked
 * so far (verbs' own register of linked functions), and {@code linked_names NAME f1,f2,...} for the
 * functions linked inside the window. Also {@code jvm_start_epoch_us} (the JVM's
 * creation, from its counters). Both the counters' file and /proc are read once before anything is
 * timed, so their own class loading is not in any window. Every wait has a deadline.
 */
public final class ColdSplit {
    private static final QpCapabilities CMTIME_QP = new QpCapabilities(1, 1, 1, 1, 0, 2);
    private static final long WAIT_S = 120;

    private ColdSplit() { }

    public static void main(String[] args) throws Exception {
        Snapshot.phase("main");
        if (args.length < 4 || args.length > 6) {
            System.err.println("usage: ColdSplit plain|prelinked|trained|trained-prelinked SERVER CLIENT PORT [K [TRAIN_N]]");
            System.exit(2);
        }
        String variant = args[0];
        if (!List.of("plain", "prelinked", "trained", "trained-prelinked").contains(variant)) {
            System.err.println("unknown variant " + variant);
            System.exit(2);
        }
        var at = new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[3]));
        var from = new InetSocketAddress(InetAddress.getByName(args[2]), 0);
        int k = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        int trainN = args.length > 5 ? Integer.parseInt(args[5]) : 200;
        PerfData perf = PerfData.open();
        Snapshot.init(perf);
        System.out.println("variant " + variant + " k " + k + " train_n " + trainN);
        if (perf != null) {
            System.out.println("jvm_start_epoch_us " + perf.value("sun.rt.createVmBeginTime") * 1000);
        }
        Snapshot s = Snapshot.take();
        Snapshot.phase("ready");   // the counters' and /proc's first reads done
        switch (variant) {
            case "prelinked" -> System.out.println("prelink linked " + Rdma.linkAll());
            case "trained" -> trainWithoutLinking(trainN);
            case "trained-prelinked" -> System.out.println(ColdStart.train(trainN));
            default -> { }
        }
        Snapshot.phase("prepared");
        s = s.window("step");
        run(at, from, k, s);
        System.exit(0);
    }

    /** ColdStart.train's class loading and connections, without its Rdma.linkAll(). */
    private static void trainWithoutLinking(int n) throws ReflectiveOperationException {
        long t0 = System.nanoTime();
        Method load = ColdStart.class.getDeclaredMethod("loadClasses");
        Method connect = ColdStart.class.getDeclaredMethod("connect", int.class);
        load.setAccessible(true);
        connect.setAccessible(true);
        try {
            int loaded = (int) load.invoke(null);
            connect.invoke(null, n);
            System.out.printf("training without linking: %d classes loaded, %d connections in %.1f ms%n", loaded, n,
                    (System.nanoTime() - t0) / 1e6);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("training failed: " + e.getCause(), e.getCause());
        }
    }

    private static void run(InetSocketAddress at, InetSocketAddress from, int k, Snapshot s) throws Exception {
        var accepted = new ConcurrentLinkedQueue<RdmaConnection>();
        try (RdmaCm cm = CmBench.openRdmaCm()) {
            Snapshot.phase("opened");
            s = s.window("open");
            RdmaListener l = cm.listen(at, ListenOptions.defaults().withBacklog(128).withMaxPendingRequests(128)
                            .withDecisionOnDispatcher(CmBench.DECIDE_ON_DISPATCHER),
                    r -> r.accept(ConnectionHandler.none(), AcceptOptions.defaults().raw().qp(CMTIME_QP))
                            .thenAccept(accepted::add));
            Snapshot.phase("listening");
            s = s.window("listen");
            ConnectOptions options = ConnectOptions.builder().raw().qp(CMTIME_QP).source(from).build();
            for (int i = 0; i < k; i++) {
                long t0 = System.nanoTime();
                RdmaConnection c = await(cm.connect(at, options, ConnectionHandler.none()));
                long t1 = System.nanoTime();
                s = s.window("conn" + (i + 1));
                System.out.printf("latency_us %d %.1f%n", i, (t1 - t0) / 1e3);
                Snapshot.phase("connected" + (i + 1));
                await(c.close());
                await(Waits.nextAccepted(accepted, i, WAIT_S).closeFuture());
                s = Snapshot.take();   // the close is in no window
            }
            await(l.close());
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return Waits.await(f, WAIT_S);
    }

    /** The process's state at one moment: time, CPU, the compiler threads' CPU, the JVM counters, links. */
    private record Snapshot(long nanos, long[] cpu, long compilerTicks, long[] counters, java.util.Set<String> linked) {
        private static final String[] COUNTERS = {
            "java.cls.loadedClasses", "java.cls.sharedLoadedClasses", "sun.cls.initializedClasses",
            "sun.cls.classInitTime", "sun.cls.classInitTime.self", "sun.cls.time", "sun.cls.classLinkedTime.self",
            "sun.cls.classVerifyTime.self", "sun.cls.defineAppClassTime.self", "java.ci.totalTime", "sun.ci.totalCompiles",
        };
        private static final String[] NAMES = {
            "loaded", "loaded_shared", "initialised", "clinit_ms", "clinit_self_ms", "class_load_ms", "link_self_ms",
            "verify_self_ms", "define_self_ms", "jit_ms", "compiles",
        };
        private static PerfData perf;
        private static double ticksPerMs = 1e6;

        static void init(PerfData p) {
            perf = p;
            if (p != null && p.value("sun.os.hrt.frequency") > 0) {
                ticksPerMs = p.value("sun.os.hrt.frequency") / 1e3;
            }
        }

        static void phase(String name) {
            java.time.Instant now = java.time.Instant.now();
            System.out.printf("phase %s %d %d%n", name, now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000,
                    System.nanoTime());
        }

        static Snapshot take() throws IOException {
            long n = System.nanoTime();
            long[] c = new long[COUNTERS.length];
            for (int i = 0; i < c.length; i++) {
                c[i] = perf == null ? -1 : perf.value(COUNTERS[i]);
            }
            Map<String, long[]> threads = threadTicks();
            long compiler = 0;
            for (var e : threads.entrySet()) {
                if (e.getKey().startsWith("C1 CompilerThre") || e.getKey().startsWith("C2 CompilerThre")) {
                    compiler += e.getValue()[0] + e.getValue()[1];
                }
            }
            return new Snapshot(n, ConnectCost.ticks(Path.of("/proc/self/stat")), compiler, c, linkedFunctions());
        }

        /** The functions verbs has linked so far, sorted. */
        private static java.util.Set<String> linkedFunctions() {
            return new java.util.TreeSet<>(Rdma.linkedFunctions());
        }

        /** Prints the window from this snapshot to now as {@code window NAME ...}; returns now's. */
        Snapshot window(String name) throws IOException {
            Snapshot b = take();
            StringBuilder sb = new StringBuilder("window ").append(name);
            sb.append(String.format(" wall_ms %.1f", (b.nanos - nanos) / 1e6));
            sb.append(String.format(" cpu_user_ms %.0f cpu_sys_ms %.0f compiler_cpu_ms %.0f",
                    (b.cpu[0] - cpu[0]) * ConnectCost.TICK_US / 1e3, (b.cpu[1] - cpu[1]) * ConnectCost.TICK_US / 1e3,
                    (b.compilerTicks - compilerTicks) * ConnectCost.TICK_US / 1e3));
            for (int i = 0; i < COUNTERS.length; i++) {
                long d = b.counters[i] - counters[i];
                if (NAMES[i].endsWith("_ms")) {
                    sb.append(String.format(" %s %.1f", NAMES[i], d / ticksPerMs));
                } else {
                    sb.append(' ').append(NAMES[i]).append(' ').append(d);
                }
            }
            java.util.Set<String> added = new java.util.TreeSet<>(b.linked);
            added.removeAll(linked);
            sb.append(" linked_functions ").append(b.linked.size()).append(" linked_in_window ").append(added.size());
            System.out.println(sb);
            System.out.println("linked_names " + name + " " + (added.isEmpty() ? "-" : String.join(",", added)));
            return b;
        }

        /** utime + stime (ticks) of every live thread, by name, threads of one name added up. */
        private static Map<String, long[]> threadTicks() throws IOException {
            Map<String, long[]> m = new TreeMap<>();
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
                for (Path t : tasks) {
                    long[] u;
                    String name;
                    try {
                        String stat = Files.readString(t.resolve("stat"));
                        name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        u = ConnectCost.ticks(t.resolve("stat"));
                    } catch (IOException gone) {
                        continue;
                    }
                    long[] v = m.computeIfAbsent(name, x -> new long[2]);
                    v[0] += u[0];
                    v[1] += u[1];
                }
            }
            return m;
        }
    }

    /**
     * This JVM's performance counters (the hsperfdata file, {@code /tmp/hsperfdata_USER/PID},
     * mapped shared, so a read sees the JVM's current values): the long counters by name.
     */
    static final class PerfData {
        private final MappedByteBuffer buf;
        private final Map<String, Integer> offsets = new LinkedHashMap<>();

        private PerfData(MappedByteBuffer buf) {
            this.buf = buf;
            buf.order(buf.get(4) == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
            int entry = buf.getInt(24);
            int count = buf.getInt(28);
            for (int i = 0; i < count; i++) {
                int length = buf.getInt(entry);
                int nameOffset = buf.getInt(entry + 4);
                int vector = buf.getInt(entry + 8);
                byte type = buf.get(entry + 12);
                int dataOffset = buf.getInt(entry + 16);
                int end = entry + nameOffset;
                while (buf.get(end) != 0) {
                    end++;
                }
                byte[] name = new byte[end - entry - nameOffset];
                buf.get(entry + nameOffset, name);
                if (type == 'J' && vector == 0) {
                    offsets.put(new String(name, StandardCharsets.US_ASCII), entry + dataOffset);
                }
                entry += length;
            }
        }

        /** The counters of this JVM, or null (no -XX:+UsePerfData file where HotSpot puts it), saying why. */
        static PerfData open() {
            Path f = Path.of("/tmp", "hsperfdata_" + System.getProperty("user.name"),
                    Long.toString(ProcessHandle.current().pid()));
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                return new PerfData(ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()));
            } catch (IOException | RuntimeException e) {
                System.out.println("perfdata none (" + f + ": " + e + ")");
                return null;
            }
        }

        long value(String name) {
            Integer at = offsets.get(name);
            return at == null ? -1 : buf.getLong(at);
        }
    }
}
