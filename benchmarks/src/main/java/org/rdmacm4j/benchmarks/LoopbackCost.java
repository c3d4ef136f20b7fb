package org.rdmacm4j.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.rdmacm4j.cm.core.ColdStart;

/**
 * The framework's own CPU per connection, without a native call (issue 21's accounting): {@code
 * LoopbackCost WARMUP K1 K2 REPS}. {@link ColdStart#train} runs connections through the public API
 * on the real dispatcher, machines, futures and callbacks over the in-memory port (listen, accept
 * raw, every third with private data, every 50th rejected, connect, close both ends). After one
 * warm-up call of WARMUP connections, each repetition times the whole process's CPU around a call
 * of K1 and one of K2 connections and prints {@code loopback user_us U sys_us S alloc_bytes A} per
 * connection (A: bytes allocated by every thread of the JVM), the difference divided by K2 - K1, so what a call costs apart from its connections (the training's
 * class loading and linking, the RdmaCm's threads) cancels out. In one process: a difference of two
 * JVM runs drowns in the start-ups' variation under TCG. Any thread; every wait has ColdStart's
 * deadline; a failure exits non-zero.
 */
public final class LoopbackCost {
    private LoopbackCost() { }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: LoopbackCost WARMUP K1 K2 REPS");
            System.exit(2);
        }
        int warmup = Integer.parseInt(args[0]);
        int k1 = Integer.parseInt(args[1]);
        int k2 = Integer.parseInt(args[2]);
        int reps = Integer.parseInt(args[3]);
        if (k2 <= k1 || k1 < 1 || warmup < 1 || reps < 1) {
            throw new IllegalArgumentException("need WARMUP >= 1, 1 <= K1 < K2, REPS >= 1");
        }
        System.out.println("warm-up: " + ColdStart.train(warmup));
        Path stat = Path.of("/proc/self/stat");
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int r = 1; r <= reps; r++) {
            long b0 = threads.getTotalThreadAllocatedBytes();
            long[] a0 = ConnectCost.ticks(stat);
            ColdStart.train(k1);
            long[] a1 = ConnectCost.ticks(stat);
            long b1 = threads.getTotalThreadAllocatedBytes();
            ColdStart.train(k2);
            long[] a2 = ConnectCost.ticks(stat);
            long b2 = threads.getTotalThreadAllocatedBytes();
            double n = k2 - k1;
            double user = ((a2[0] - a1[0]) - (a1[0] - a0[0])) * ConnectCost.TICK_US / n;
            double sys = ((a2[1] - a1[1]) - (a1[1] - a0[1])) * ConnectCost.TICK_US / n;
            double alloc = ((b2 - b1) - (b1 - b0)) / n;
            System.out.printf("loopback r%d user_us %.1f sys_us %.1f alloc_bytes %.0f (K1=%d: %d+%d ticks, K2=%d: %d+%d ticks)%n",
                    r, user, sys, alloc, k1, a1[0] - a0[0], a1[1] - a0[1], k2, a2[0] - a1[0], a2[1] - a1[1]);
        }
        System.exit(0);
    }
}
