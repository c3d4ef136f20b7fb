package org.rdmacm4j.it.core;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * What the soak's time went to, every {@link #PERIOD_SECONDS}: the healthy connections' message
 * rate and slowest round, the faults injected in the period and the one running at its end, this
 * JVM's JIT compile time and GC time, the CPU of the whole guest (user, system, softirq: rxe does
 * its work in the kernel), of this JVM, of the soak peer's JVM, and the three busiest threads of
 * this JVM. One line per period, starting {@code FIGURE soak window}, printed as the soak runs, so a
 * slow phase of a long run shows what was different while it lasted (issue 19.4).
 *
 * <p>Threads: {@link #start} and {@link #stop} on the test thread; {@link #roundDone} on the pump;
 * {@link #faultStarted}/{@link #faultEnded} on the fault loop; the lines are printed on the
 * monitor's own daemon thread.
 */
final class SoakMonitor {
    static final int PERIOD_SECONDS = 10;

    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong slowestRoundNanos = new AtomicLong();
    private final Map<SoakIT.Fault, AtomicLong> faults = new EnumMap<>(SoakIT.Fault.class);
    private volatile SoakIT.Fault running;
    private final LongSupplier peerPid;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Map<Long, Long> threadCpu = new HashMap<>();
    private volatile boolean stopped;
    private Thread thread;

    /** @param peerPid the soak peer JVM's pid now (0 while there is none) */
    SoakMonitor(LongSupplier peerPid) {
        this.peerPid = peerPid;
        for (SoakIT.Fault f : SoakIT.Fault.values()) {
            faults.put(f, new AtomicLong());
        }
    }

    void roundDone(int messagesInRound, long roundNanos) {
        messages.addAndGet(messagesInRound);
        rounds.incrementAndGet();
        slowestRoundNanos.accumulateAndGet(roundNanos, Math::max);
    }

    void faultStarted(SoakIT.Fault f) {
        faults.get(f).incrementAndGet();
        running = f;
    }

    void faultEnded() {
        running = null;
    }

    void start() {
        long t0 = System.nanoTime();
        thread = Thread.ofPlatform().daemon().name("soak-monitor").start(() -> run(t0));
    }

    void stop() throws InterruptedException {
        stopped = true;
        if (thread != null) {
            thread.interrupt();
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    private void run(long t0) {
        Snapshot last = snapshot();
        threadCpuDeltas();   // primes the per-thread CPU table
        long next = t0;
        while (!stopped) {
            next += TimeUnit.SECONDS.toNanos(PERIOD_SECONDS);
            try {
                TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
            } catch (InterruptedException e) {
                return;
            }
            Snapshot now = snapshot();
            long msgs = messages.getAndSet(0);
            long r = rounds.getAndSet(0);
            long slowest = slowestRoundNanos.getAndSet(0);
            String injected = faults.entrySet().stream().filter(e -> e.getValue().get() > 0)
                    .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + " " + e.getValue().getAndSet(0))
                    .collect(Collectors.joining(", "));
            double wall = (now.nanos - last.nanos) / 1e9;
            System.out.printf(Locale.ROOT, "FIGURE soak window +%.0f s: %.0f msgs/s, %d rounds (slowest %d ms); "
                            + "faults [%s], running %s; jit %d ms, gc %d x %d ms; guest cpu user %.0f%% sys %.0f%% "
                            + "softirq %.0f%% idle %.0f%% (of %d cpus); this jvm %.0f%%, peer jvm %s; busiest %s%n",
                    (now.nanos - t0) / 1e9, msgs / wall, r, slowest / 1_000_000, injected, running,
                    now.jitMs - last.jitMs, now.gcCount - last.gcCount, now.gcMs - last.gcMs,
                    pct(now.user - last.user, now, last), pct(now.system - last.system, now, last),
                    pct(now.softirq - last.softirq, now, last), pct(now.idle - last.idle, now, last), now.cpus,
                    (now.selfCpuTicks - last.selfCpuTicks) / (wall * TICKS) * 100,
                    now.peerPid == 0 ? "none" : now.peerPid != last.peerPid ? "new (pid " + now.peerPid + ")"
                            : String.format(Locale.ROOT, "%.0f%%", (now.peerCpuTicks - last.peerCpuTicks)
                                    / (wall * TICKS) * 100),
                    threadCpuDeltas());
            last = now;
        }
    }

    private static final double TICKS = 100.0;   // USER_HZ on Linux

    private static double pct(long ticks, Snapshot now, Snapshot last) {
        long total = now.totalTicks - last.totalTicks;
        return total == 0 ? 0 : 100.0 * ticks / total;
    }

    /** The three threads of this JVM that used the most CPU since the last call, as "name ms". */
    private String threadCpuDeltas() {
        List<long[]> deltas = new ArrayList<>();
        Map<Long, String> names = new HashMap<>();
        for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long id = info.getThreadId();
            long cpu = threads.getThreadCpuTime(id);
            if (cpu < 0) {
                continue;
            }
            Long before = threadCpu.put(id, cpu);
            deltas.add(new long[] {id, cpu - (before == null ? 0 : before)});
            names.put(id, info.getThreadName());
        }
        threadCpu.keySet().retainAll(names.keySet());
        return deltas.stream().sorted(Comparator.comparingLong((long[] d) -> d[1]).reversed()).limit(3)
                .map(d -> names.get(d[0]) + " " + d[1] / 1_000_000 + " ms").collect(Collectors.joining(", "));
    }

    private record Snapshot(long nanos, long jitMs, long gcCount, long gcMs, long user, long system, long softirq,
                            long idle, long totalTicks, int cpus, long selfCpuTicks, long peerPid, long peerCpuTicks) { }

    private Snapshot snapshot() {
        long gcCount = 0;
        long gcMs = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMs += Math.max(0, gc.getCollectionTime());
        }
        var jit = ManagementFactory.getCompilationMXBean();
        long jitMs = jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
        long[] cpu = new long[8];
        int cpus = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (line.startsWith("cpu ")) {
                    String[] f = line.trim().split("\\s+");
                    for (int i = 0; i < cpu.length && i + 1 < f.length; i++) {
                        cpu[i] = Long.parseLong(f[i + 1]);
                    }
                } else if (line.startsWith("cpu")) {
                    cpus++;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the guest CPU columns read 0
        }
        long total = 0;
        for (long c : cpu) {
            total += c;
        }
        long pid = peerPid.getAsLong();
        // /proc/stat: user nice system idle iowait irq softirq steal
        return new Snapshot(System.nanoTime(), jitMs, gcCount, gcMs, cpu[0] + cpu[1], cpu[2] + cpu[5], cpu[6],
                cpu[3] + cpu[4], total, cpus, processTicks(ProcessHandle.current().pid()), pid,
                pid == 0 ? 0 : processTicks(pid));
    }

    /** utime + stime of a process from /proc/PID/stat, in clock ticks (0 if it is gone). */
    private static long processTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);   // fields 14 and 15 of the whole line
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
