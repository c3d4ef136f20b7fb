package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * errno capture for downcalls: every librdmacm call and every libibverbs call that reports
 * failure through errno is linked with {@link #CAPTURE}, and its handle takes this thread's
 * capture segment as the first argument.
 *
 * <p>Why a per-thread segment: the JVM may run Java code (and other native calls) between the
 * native return and the point where errno is read, so errno must be saved by the linker itself;
 * one segment per thread makes that free of allocation on every call.
 */
public final class Errno {
    private Errno() { }

    public static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    private static final StructLayout STATE_LAYOUT = Linker.Option.captureStateLayout();
    /**
     * errno's offset in the capture segment, read and written as a plain int: the layout's
     * VarHandle checked the enclosing layout and its alignment on every access, a visible share of
     * the dispatcher's samples under C1 (Errno.state() runs before every capturing call).
     */
    private static final long ERRNO = STATE_LAYOUT.byteOffset(groupElement("errno"));

    // Arena.ofAuto(): the segment lives as long as its thread's ThreadLocal entry (and PerThread's
    // cache). A PerThread, not a bare ThreadLocal: state() runs before every capturing call, and a
    // ThreadLocal lookup is a JNI call into the VM under C1 (PerThread's comment).
    private static final PerThread<MemorySegment> STATE =
            new PerThread<>(() -> Arena.ofAuto().allocate(STATE_LAYOUT));

    /** Only when a failure is described: linked on first use. */
    private static final class Strerror {
        static final MethodHandle H = Libraries.LINKER.downcallHandle(
                Libraries.libc().findOrThrow("strerror"), FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    /**
     * This thread's capture segment; pass it as the first argument of a capturing handle. Not
     * cleared: the linker writes the thread's errno into it after every capturing call (clearing the
     * segment never cleared the thread's errno), and errno is read only after a call that failed.
     */
    public static MemorySegment state() {
        return STATE.get();
    }

    /** A fresh capture segment (benchmarks, tests). */
    public static MemorySegment newState(Arena arena) {
        return arena.allocate(STATE_LAYOUT);
    }

    /** errno as saved by the last capturing call that used {@code state}. */
    public static int read(MemorySegment state) {
        return state.get(JAVA_INT_UNALIGNED, ERRNO);
    }

    /**
     * strerror(3) text. glibc's strerror is thread-safe since 2.32 (an unknown number is
     * formatted into a thread-local buffer); the text is copied out at once.
     */
    public static String describe(int errno) {
        try {
            MemorySegment s = (MemorySegment) Strerror.H.invokeExact(errno);
            return s.address() == 0L ? "Unknown error " + errno : s.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
