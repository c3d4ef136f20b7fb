package org.rdmacm4j.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A measurement window over a run of connections, the Java twin of {@code
 * benchmarks/src/main/c/window.h} (same files, same output lines, so C and Java are measured alike):
 * the whole process's user and sys CPU time ({@code /proc/self/stat}, USER_HZ ticks), per thread the
 * time on a CPU, the run-queue wait and the number of slices ({@code /proc/self/task/T/schedstat})
 * and its user and sys time ({@code /proc/self/task/T/stat}; window.h, one thread, prints none),
 * the descriptors that point to /dev/infiniband, and perf switched on and off around the window when
 * {@code BENCH_PERF_CTL} / {@code BENCH_PERF_ACK} name its control fifos. One thread opens and closes
 * a window (the benchmark's main thread). Each end also executes {@link InsnMark}'s marker, for the
 * instruction counts of {@code benchmarks/insn-count.sh}.
 */
final class Window {
    private static final long USER_HZ = 100;    // /proc's clock ticks on Linux
    private static final long ACK_WAIT_S = 10;

    /** A thread's schedstat (run, run-queue wait, slices) and its user and system time in ticks (its stat). */
    private record Sched(String comm, long runNs, long waitNs, long slices, long userTicks, long sysTicks) { }

    private final long startNanos;
    private final long[] cpu;
    private final Map<Integer, Sched> threads;
    private final long gcs;
    private final long jitMs;
    private final long uptimeMs;
    private final long openCpuMs;

    private Window() throws IOException {
        long[] before = processCpuTicks();
        printInfinibandFds();
        // the JVM's own clock (-XX:+PrintCompilation's, -Xlog's uptime), to place its lines in the
        // window; read before the window (the first read loads the management classes)
        uptimeMs = ManagementFactory.getRuntimeMXBean().getUptime();
        gcs = gcCount();
        jitMs = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        // The CPU times last, after the management classes' first load and the threads' /proc
        // files: read first (until s42), they put that one-time work (hundreds of ms of the main
        // thread under TCG, s42-smoke3's samples) inside every window, spread over its connections,
        // where C's window.h reads its clock and starts.
        threads = threads();
        cpu = processCpuTicks();
        perf("enable\n");
        InsnMark.open();
        openCpuMs = (cpu[0] + cpu[1] - before[0] - before[1]) * 1000 / USER_HZ;
        startNanos = System.nanoTime();
        // nothing printed until close: a line is write(2)s through 9p in the guest, inside the window
    }

    static Window open() throws IOException {
        System.out.flush();
        return new Window();
    }

    void close(long connections) throws IOException {
        long wallNanos = System.nanoTime() - startNanos;
        InsnMark.close();
        perf("disable\n");
        long[] cpuNow = processCpuTicks();
        Map<Integer, Sched> now = threads();
        System.out.println("window_start_monotonic_ns " + startNanos);
        System.out.println("window_start_jvm_uptime_ms " + uptimeMs);
        // what opening the window cost the process before its CPU times were read (not in the window)
        System.out.println("window_open_cpu_ms " + openCpuMs);
        System.out.println("window_end_monotonic_ns " + (startNanos + wallNanos));
        System.out.println("window_end_jvm_uptime_ms " + ManagementFactory.getRuntimeMXBean().getUptime());
        // what the JVM did inside the window besides the program: collections and JIT compiling, the
        // two things that move a window's instruction count between runs of one build
        System.out.println("window_jvm gcs " + (gcCount() - gcs) + " jit_ms "
                + (ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jitMs));
        double per = connections;
        long run = 0;
        long wait = 0;
        for (var e : now.entrySet()) {
            Sched b = threads.getOrDefault(e.getKey(), new Sched("", 0, 0, 0, 0, 0));
            Sched a = e.getValue();
            run += a.runNs - b.runNs;
            wait += a.waitNs - b.waitNs;
            System.out.printf("thread %s %d run_us %.1f runq_us %.1f slices %.2f user_us %.1f sys_us %.1f%n", a.comm,
                    e.getKey(), (a.runNs - b.runNs) / 1e3 / per, (a.waitNs - b.waitNs) / 1e3 / per,
                    (a.slices - b.slices) / per, (a.userTicks - b.userTicks) * 1e6 / USER_HZ / per,
                    (a.sysTicks - b.sysTicks) * 1e6 / USER_HZ / per);
        }
        System.out.printf("window connections %d wall_us %.1f cpu_user_us %.1f cpu_sys_us %.1f run_us %.1f runq_us %.1f%n",
                connections, wallNanos / 1e3 / per, (cpuNow[0] - cpu[0]) * 1e6 / USER_HZ / per,
                (cpuNow[1] - cpu[1]) * 1e6 / USER_HZ / per, run / 1e3 / per, wait / 1e3 / per);
        System.out.flush();
    }

    private static long gcCount() {
        long n = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    /** {utime, stime} of the whole process in ticks: /proc/self/stat fields 14 and 15. */
    private static long[] processCpuTicks() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};   // fields 14, 15 counted from 1
    }

    private static Map<Integer, Sched> threads() throws IOException {
        Map<Integer, Sched> out = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String[] s = Files.readString(t.resolve("schedstat")).trim().split(" ");
                    String comm = Files.readString(t.resolve("comm")).trim().replace(' ', '_');
                    String stat = Files.readString(t.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    out.put(Integer.parseInt(t.getFileName().toString()),
                            new Sched(comm, Long.parseLong(s[0]), Long.parseLong(s[1]), Long.parseLong(s[2]),
                                    Long.parseLong(f[11]), Long.parseLong(f[12])));   // utime, stime: fields 14, 15
                } catch (IOException gone) {
                    // the thread ended while the list was read: it is not in this window's figures
                }
            }
        }
        return out;
    }

    private static void printInfinibandFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("/dev/infiniband/")) {
                        System.out.println("fd " + fd.getFileName() + " " + target);
                    }
                } catch (IOException gone) {
                    // closed while listed
                }
            }
        }
    }

    /**
     * Makes the perf control's thread now, at a program's start, if perf is to be switched
     * ({@code BENCH_PERF_CTL} and {@code BENCH_PERF_ACK} set). Made at a window's open instead, as it
     * was, its executor's worker, a new subclass of AbstractQueuedSynchronizer, was loaded inside the
     * measured window: C1's code for AbstractQueuedSynchronizer and LinkedBlockingQueue (the
     * benchmark's queue of accepted ends, the library's locks) relied on there being no such subclass
     * and was thrown away ("made not entrant"), so those methods ran interpreted until C1 compiled
     * them again, seconds later, all inside the window (s39-split2: in the lone, storm-setup and
     * storm-teardown windows alike). C's window.h has nothing of the kind.
     */
    static void prepare() {
        PerfControl.ready();   // once per program: a second call runs one more empty task
    }

    /** Sends a command to perf's control fifo and waits for its ack, at most ACK_WAIT_S. */
    private static void perf(String command) {
        if (PerfControl.IO == null) {
            return;
        }
        try {
            PerfControl.send(command).get(ACK_WAIT_S, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("window: perf did not ack " + command.trim() + ": " + e);
        }
    }

    /**
     * The one thread that talks to perf's control fifos, made when the class is initialised
     * ({@link #prepare}) and kept for the process (a daemon: it never holds the JVM up). A fifo's
     * open blocks until the other end is open, so the commands run here, under the caller's deadline.
     */
    private static final class PerfControl {
        private static final String CTL = System.getenv("BENCH_PERF_CTL");
        private static final String ACK = System.getenv("BENCH_PERF_ACK");
        /** Null when perf is not to be switched. */
        static final ExecutorService IO = CTL == null || ACK == null || CTL.isEmpty() || ACK.isEmpty() ? null
                : Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon(true).name("window-perf").unstarted(r));

        private PerfControl() { }

        /**
         * Runs one empty command through the thread: the worker, CompletableFuture's async task,
         * the command's class and theirs exist from here on. Not in the class initializer: the
         * worker would wait for this class's initialization to run the task, and the initializer
         * for the task (a deadlock).
         */
        static void ready() {
            if (IO != null) {
                CompletableFuture.runAsync(new Command(null), IO).join();
            }
        }

        static CompletableFuture<Void> send(String command) {
            return CompletableFuture.runAsync(new Command(command), IO);
        }

        /** Writes one command to the control fifo and reads perf's ack; null does nothing. A named class: no lambda spun in a window. */
        private record Command(String text) implements Runnable {
            @Override
            public void run() {
                if (text == null) {
                    return;
                }
                try {
                    Files.writeString(Path.of(CTL), text, StandardCharsets.US_ASCII);
                    try (InputStream in = Files.newInputStream(Path.of(ACK))) {
                        in.readNBytes(4);   // "ack\n"
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
