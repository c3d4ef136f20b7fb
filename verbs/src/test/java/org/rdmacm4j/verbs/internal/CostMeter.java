package org.rdmacm4j.verbs.internal;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * CPU ns and bytes allocated per call on this thread, for the measurements (the *CostHarness classes and
 * the gated measurement methods, skipped unless their -D property is set). The calls of one
 * {@link #compare} are measured in interleaved rounds, so that a busy host's drift hits them alike: on a
 * shared two-core host the minimum of one call's rounds moved by a quarter from run to run.
 */
public final class CostMeter {
    private static final ThreadMXBean MX = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private CostMeter() { }

    /** One call to measure, by name. */
    public record Call(String name, LongSupplier body) { }

    /** Warms each call up ({@code calls} times), then measures {@code rounds} interleaved rounds of each; prints one line per call. */
    public static void compare(String harness, int calls, int rounds, Call... measured) {
        long sink = 0;
        for (Call c : measured) {
            for (int i = 0; i < calls; i++) {
                sink += c.body().getAsLong();
            }
        }
        double[][] ns = new double[measured.length][rounds];
        double[][] bytes = new double[measured.length][rounds];
        long tid = Thread.currentThread().threadId();
        for (int r = 0; r < rounds; r++) {
            for (int m = 0; m < measured.length; m++) {
                LongSupplier body = measured[m].body();
                long cpu0 = MX.getCurrentThreadCpuTime();
                long b0 = MX.getThreadAllocatedBytes(tid);
                for (int i = 0; i < calls; i++) {
                    sink += body.getAsLong();
                }
                ns[m][r] = (double) (MX.getCurrentThreadCpuTime() - cpu0) / calls;
                bytes[m][r] = (double) (MX.getThreadAllocatedBytes(tid) - b0) / calls;
            }
        }
        for (int m = 0; m < measured.length; m++) {
            Arrays.sort(ns[m]);
            Arrays.sort(bytes[m]);
            System.out.printf("%s %-28s ns/call min %6.1f median %6.1f; bytes/call median %4.0f%n", harness,
                    measured[m].name(), ns[m][0], ns[m][rounds / 2], bytes[m][rounds / 2]);
        }
        System.out.println(harness + " (" + (sink & 1) + ")");
    }
}
