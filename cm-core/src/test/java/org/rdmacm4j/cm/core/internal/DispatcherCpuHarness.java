package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.statemachine.Transport;

/**
 * A measurement, not a test (skipped unless {@code -Drdmacm4j.cpu.cycles=N}): the dispatcher
 * thread's CPU time, bytes allocated and clock reads per connect+close cycle (both ends, as in
 * {@link DispatcherCostTest}) over the fake port, after warm-up, in {@code rdmacm4j.cpu.rounds}
 * rounds of N cycles in one JVM; prints each round and the min/median. Run it under the JIT of
 * interest (docs/benchmarks.md, "Dispatcher CPU per connection on the host"):
 * <pre>
 * ./mvnw -o -q install -DskipTests     # once
 * ./mvnw -o -q -pl cm-core test-compile surefire:test -Dtest=DispatcherCpuHarness \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Drdmacm4j.cpu.cycles=20000 -DargLine=-XX:TieredStopAtLevel=1
 * </pre>
 */
@EnabledIfSystemProperty(named = "rdmacm4j.cpu.cycles", matches = "\\d+")
class DispatcherCpuHarness {

    @Test
    void dispatcherCpuPerConnection() throws Exception {
        int cycles = Integer.getInteger("rdmacm4j.cpu.cycles");
        int rounds = Integer.getInteger("rdmacm4j.cpu.rounds", 3);
        int warmup = Integer.getInteger("rdmacm4j.cpu.warmup", Math.max(2_000, cycles / 2));
        FakeCmPort port = new FakeCmPort();
        port.maxAwaitNanos = TimeUnit.SECONDS.toNanos(1);
        DispatcherCostTest.CountingClock clock = new DispatcherCostTest.CountingClock();
        ExecutorService callbacks = Executors.newCachedThreadPool();
        Dispatcher dispatcher = new Dispatcher(port, callbacks, clock,
                new Dispatcher.Config(32, Transport.ROCE, Duration.ofSeconds(5)));
        dispatcher.start();
        double[] cpu = new double[rounds];
        double[] bytes = new double[rounds];
        double[] reads = new double[rounds];
        double[] wall = new double[rounds];
        double[] user = new double[rounds];
        double[] wakeups = new double[rounds];
        try {
            LinkedBlockingQueue<ConnectionRequest> requests = new LinkedBlockingQueue<>();
            RdmaListener listener = dispatcher.listen(DispatcherCostTest.ANY, ListenOptions.defaults(), requests::add);
            FakeId lid = port.ids().getFirst();
            for (int i = 0; i < warmup; i++) {
                DispatcherCostTest.oneConnection(dispatcher, port, lid, requests);
            }
            long tid = dispatcher.threadId();
            for (int r = 0; r < rounds; r++) {
                port.awaitIdle();
                long cpu0 = cpuNanos(tid);
                long user0 = userNanos(tid);
                long wakeups0 = port.wakeups.get();
                long bytes0 = DispatcherCostTest.allocatedBytes(tid);
                long reads0 = clock.onDispatcher.get();
                long t0 = System.nanoTime();
                for (int i = 0; i < cycles; i++) {
                    DispatcherCostTest.oneConnection(dispatcher, port, lid, requests);
                }
                long w = System.nanoTime() - t0;
                port.awaitIdle();
                // The harness's own: one in oneConnection (the fake's CONNECT_REQUEST) and one per awaitIdle.
                wakeups[r] = (double) (port.wakeups.get() - wakeups0 - 1) / cycles - 1;
                cpu[r] = (cpuNanos(tid) - cpu0) / 1000.0 / cycles;
                user[r] = (userNanos(tid) - user0) / 1000.0 / cycles;
                bytes[r] = (double) (DispatcherCostTest.allocatedBytes(tid) - bytes0) / cycles;
                reads[r] = (double) (clock.onDispatcher.get() - reads0) / cycles;
                wall[r] = w / 1000.0 / cycles;
                System.out.printf("DispatcherCpuHarness round %d: %.1f us dispatcher CPU (%.1f user), %.0f bytes, "
                        + "%.2f clock reads, %.2f wake-ups, %.1f us wall per cycle%n", r + 1, cpu[r], user[r], bytes[r], reads[r],
                        wakeups[r], wall[r]);
            }
            listener.close().get(5, TimeUnit.SECONDS);
            assertThat(port.violations()).isEmpty();
        } finally {
            dispatcher.shutdown(false, Duration.ofSeconds(5));
            callbacks.shutdownNow();
        }
        System.out.printf("DispatcherCpuHarness [%s] %d x %d cycles after %d warm-up: dispatcher CPU us/cycle "
                + "min %.1f median %.1f (user median %.1f); bytes/cycle min %.0f median %.0f; clock reads median %.2f; wake-ups median %.2f; wall us median %.1f%n",
                jit(), rounds, cycles, warmup, min(cpu), median(cpu), median(user), min(bytes), median(bytes), median(reads), median(wakeups), median(wall));
    }

    private static String jit() {
        try {
            Object rt = Class.forName("java.lang.management.ManagementFactory").getMethod("getRuntimeMXBean").invoke(null);
            @SuppressWarnings("unchecked")
            java.util.List<String> args = (java.util.List<String>) Class.forName("java.lang.management.RuntimeMXBean")
                    .getMethod("getInputArguments").invoke(rt);
            return args.stream().filter(a -> a.startsWith("-XX:TieredStopAtLevel")).findFirst().orElse("default JIT");
        } catch (ReflectiveOperationException e) {
            return "?";
        }
    }

    /** ThreadMXBean#getThreadCpuTime, reflectively (see DispatcherCostTest#allocatedBytes). */
    static long cpuNanos(long threadId) throws ReflectiveOperationException {
        Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        return (long) Class.forName("java.lang.management.ThreadMXBean")
                .getMethod("getThreadCpuTime", long.class).invoke(mx, threadId);
    }

    /** ThreadMXBean#getThreadUserTime (the rest of the CPU time is the kernel's: waits, wake-ups). */
    static long userNanos(long threadId) throws ReflectiveOperationException {
        Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        return (long) Class.forName("java.lang.management.ThreadMXBean")
                .getMethod("getThreadUserTime", long.class).invoke(mx, threadId);
    }

    private static double min(double[] a) {
        return Arrays.stream(a).min().orElse(Double.NaN);
    }

    private static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
