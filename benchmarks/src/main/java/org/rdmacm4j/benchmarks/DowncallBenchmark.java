package org.rdmacm4j.benchmarks;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rdmacm4j.verbs.ibv.WcStatus;

/**
 * The cost of one downcall into a pure library function, {@code ibv_wc_status_str}, linked three
 * ways: default, {@code Linker.Option.critical(false)} (no thread-state transition), and with
 * {@code captureCallState("errno")} (what every errno-reporting binding pays). The pointer result
 * is taken as a {@code long} so that no MemorySegment is allocated per call: only the call is
 * measured. {@code run-downcall-bench.sh} runs the same call in a C loop for the baseline.
 *
 * <p>Each benchmark makes {@link #CALLS} calls, like the C loop, so per-call cost is score / CALLS.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class DowncallBenchmark {
    /** Calls per benchmark invocation (same as the C loop's inner count). */
    public static final int CALLS = 1000;

    private MethodHandle plain;
    private MethodHandle critical;
    private MethodHandle errno;
    private Arena arena;
    private MemorySegment captureState;

    @Setup
    public void link() {
        Linker linker = Linker.nativeLinker();
        SymbolLookup ibverbs = SymbolLookup.libraryLookup("libibverbs.so.1", Arena.global());
        MemorySegment fn = ibverbs.findOrThrow("ibv_wc_status_str");
        FunctionDescriptor fd = FunctionDescriptor.of(JAVA_LONG, JAVA_INT);
        plain = linker.downcallHandle(fn, fd);
        critical = linker.downcallHandle(fn, fd, Linker.Option.critical(false));
        errno = linker.downcallHandle(fn, fd, Linker.Option.captureCallState("errno"));
        arena = Arena.ofConfined();
        captureState = arena.allocate(Linker.Option.captureStateLayout());
        // Same answer as the bindings' own handle: the benchmark measures the real function.
        if (!WcStatus.SUCCESS.describe().equals("success")) {
            throw new AssertionError("ibv_wc_status_str(IBV_WC_SUCCESS) is not \"success\"");
        }
    }

    @TearDown
    public void close() {
        arena.close();
    }

    @Benchmark
    public long defaultLinkage() throws Throwable {
        long acc = 0;
        for (int i = 0; i < CALLS; i++) {
            acc ^= (long) plain.invokeExact(i & 15);
        }
        return acc;
    }

    @Benchmark
    public long criticalLinkage() throws Throwable {
        long acc = 0;
        for (int i = 0; i < CALLS; i++) {
            acc ^= (long) critical.invokeExact(i & 15);
        }
        return acc;
    }

    @Benchmark
    public long errnoCapture() throws Throwable {
        long acc = 0;
        for (int i = 0; i < CALLS; i++) {
            acc ^= (long) errno.invokeExact(captureState, i & 15);
        }
        return acc;
    }
}
