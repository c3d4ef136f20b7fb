package org.rdmacm4j.benchmarks;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;

/**
 * What one warm connect + close cycle costs the process, thread by thread, over the real port
 * (issue 21): {@code ConnectCost SERVER CLIENT PORT WARMUP K}. One RdmaCm, a listener on
 * SERVER:PORT that accepts raw with cmtime's QP, and WARMUP + K connections from CLIENT one at a
 * time, each closed (both ends) before the next, as {@code CmBench latency}. Prints
 * <ul>
 * <li>{@code open_ms}: {@code RdmaCm.open()} and the listener; {@code first_ms}: the first
 *     connect() to its future (the cold connection, this process's first);</li>
 * <li>{@code thread NAME user_us U sys_us S}: CPU per cycle of each thread over the K measured
 *     cycles, from {@code /proc/self/task/TID/stat} (utime, stime; clock ticks) before and after
 *     the window, threads of the same name added up; and {@code process user_us U sys_us S};</li>
 * <li>{@code connect_us p50 P p99 Q min M}: connect() to its future, over the window.</li>
 * </ul>
 * Every wait has a deadline; a failure exits non-zero.
 */
public final class ConnectCost {
    private static final QpCapabilities CMTIME_QP = new QpCapabilities(1, 1, 1, 1, 0, 2);
    private static final long WAIT_S = 60;
    /** USER_HZ: Linux reports utime/stime in these ticks on every architecture it runs on here. */
    static final double TICK_US = 10_000;

    private ConnectCost() { }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: ConnectCost SERVER CLIENT PORT WARMUP K");
            System.exit(2);
        }
        var at = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[2]));
        var from = new InetSocketAddress(InetAddress.getByName(args[1]), 0);
        int warmup = Integer.parseInt(args[3]);
        int k = Integer.parseInt(args[4]);
        InsnMark.prepare();
        run(at, from, warmup, k);
        System.exit(0);
    }

    private static void run(InetSocketAddress at, InetSocketAddress from, int warmup, int k) throws Exception {
        var accepted = new ConcurrentLinkedQueue<RdmaConnection>();
        long t0 = System.nanoTime();
        try (RdmaCm cm = CmBench.openRdmaCm()) {
            var acceptFailures = new java.util.concurrent.atomic.AtomicInteger();
            RdmaListener l = cm.listen(at, ListenOptions.defaults().withDecisionOnDispatcher(CmBench.DECIDE_ON_DISPATCHER),
                    r -> r.accept(ConnectionHandler.none(),
                    AcceptOptions.defaults().raw().qp(CMTIME_QP)).whenComplete((c, e) -> {
                        if (c != null) {
                            accepted.add(c);
                        } else {
                            acceptFailures.incrementAndGet();   // e.g. the peer's close overtook the accept
                        }
                    }));
            long t1 = System.nanoTime();
            System.out.printf("open_ms %.1f%n", (t1 - t0) / 1e6);
            System.out.printf("decision %s%n", CmBench.DECIDE_ON_DISPATCHER ? "dispatcher" : "executor");
            ConnectOptions options = ConnectOptions.builder().raw().qp(CMTIME_QP).source(from).build();
            long[] lat = new long[k];
            Map<String, long[]> before = null;
            long[] processBefore = null;
            int acceptFailuresSeen = 0;
            int i = 0;
            try {
                for (; i < warmup + k; i++) {
                    if (i == warmup) {
                        before = threadTicks();
                        processBefore = ticks(Path.of("/proc/self/stat"));
                        marker("start");
                        InsnMark.open();
                    }
                    long c0 = System.nanoTime();
                    RdmaConnection c = await(cm.connect(at, options, ConnectionHandler.none()));
                    long c1 = System.nanoTime();
                    if (i == 0) {
                        System.out.printf("first_ms %.1f%n", (c1 - c0) / 1e6);
                    }
                    if (i >= warmup) {
                        lat[i - warmup] = c1 - c0;
                    }
                    await(c.close());
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
                    RdmaConnection s;
                    int failuresBefore = acceptFailuresSeen;
                    while ((s = accepted.poll()) == null && acceptFailures.get() == failuresBefore
                            && System.nanoTime() < deadline) {
                        Thread.sleep(0, 100_000);
                    }
                    if (s != null) {
                        await(s.closeFuture());
                    } else if (acceptFailures.get() != failuresBefore) {
                        acceptFailuresSeen = acceptFailures.get();   // counted and printed below
                    } else {
                        throw new IllegalStateException("connection " + i + " was never accepted");
                    }
                }
            } catch (Exception e) {
                Waits.printFailure("connection " + i, e, l, cm);
                throw e;
            }
            InsnMark.close();
            marker("end");
            Map<String, long[]> after = threadTicks();
            for (var e : after.entrySet()) {
                long[] b = before.getOrDefault(e.getKey(), new long[2]);
                long[] a = e.getValue();
                System.out.printf("thread %-16s user_us %8.1f sys_us %8.1f%n", '"' + e.getKey() + '"',
                        (a[0] - b[0]) * TICK_US / k, (a[1] - b[1]) * TICK_US / k);
            }
            long[] pa = ticks(Path.of("/proc/self/stat"));
            System.out.printf("process user_us %.1f sys_us %.1f%n",
                    (pa[0] - processBefore[0]) * TICK_US / k, (pa[1] - processBefore[1]) * TICK_US / k);
            Arrays.sort(lat);
            System.out.printf("connect_us p50 %.1f p99 %.1f min %.1f (K=%d after %d warm-up)%n", lat[k / 2] / 1e3,
                    lat[Math.min(k - 1, (int) (k * 0.99))] / 1e3, lat[0] / 1e3, k, warmup);
            System.out.println("accept_failures " + acceptFailures.get());
            System.out.println("statistics " + cm.statistics());
            await(l.close());
        }
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return Waits.await(f, WAIT_S);
    }

    /** utime and stime (ticks) of every live thread, by name (comm); threads of one name added up. */
    private static Map<String, long[]> threadTicks() throws IOException {
        Map<String, long[]> m = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (IOException gone) {
                    continue;   // the thread ended between the listing and the read
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+$", "#");
                long[] v = m.computeIfAbsent(name, x -> new long[2]);
                long[] u = parse(stat);
                v[0] += u[0];
                v[1] += u[1];
            }
        }
        return m;
    }

    /**
     * A syscall with a recognisable path ({@code /tmp/connectcost-window-start}, {@code -end}) that
     * marks the measured window in a {@code strace -f} log; also prints every thread's id and name.
     */
    private static void marker(String which) throws IOException {
        Files.exists(Path.of("/tmp/connectcost-window-" + which));
        if (which.equals("end")) {
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
                for (Path t : tasks) {
                    try {
                        System.out.println("tid " + t.getFileName() + " " + Files.readString(t.resolve("comm")).strip());
                    } catch (IOException gone) {
                        // the thread ended between the listing and the read (the warm-up's, say)
                    }
                }
            }
        }
    }

    /** utime and stime (clock ticks) of a /proc stat file. */
    static long[] ticks(Path stat) throws IOException {
        return parse(Files.readString(stat));
    }

    /** utime (field 14) and stime (field 15) of a stat line; the name (field 2) may hold spaces. */
    private static long[] parse(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
    }
}
