package org.rdmacm4j.verbs.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.rdmacm4j.verbs.RdmaException;

/**
 * The one place where downcall handles are made and native failures become exceptions.
 *
 * <p>Three kinds of handle: {@link #errno} (errno captured; the handle's first parameter is the
 * capture segment), {@link #plain} (functions that return their error number, or cannot fail),
 * and {@link #critical} (short, non-blocking calls that never call back into Java: no thread
 * state transition). Blocking calls (rdma_get_cm_event, ibv_get_cq_event, ibv_get_async_event)
 * are never critical: a critical call holds up safepoints for as long as it runs.
 */
public final class Native {
    private Native() { }

    /**
     * A pointer argument passed as a plain 64-bit value: the descriptors of the functions a
     * connection calls (CmLib, IbvLib, SysLib) use it in place of {@code ADDRESS}. Why: for each
     * {@code ADDRESS} argument the JDK's downcall code acquires and releases the segment's session,
     * checks that it is native ({@code SharedUtils.checkNative}) and reads its address, each an
     * interface or virtual call under C1 (the launchers' JIT): most of the ~16k user instructions
     * {@code jdk.internal.foreign} cost per warm connection in the guest. A long is passed as it is.
     *
     * <p>What the JDK no longer does for such an argument, the callers do: the typed classes validate
     * arguments and check that the object is open before the call, as they did, and pass the address
     * of memory that stays alive across the call (librdmacm's and libibverbs' own objects; a
     * {@link Scratch} slice, whose block the thread holds; a buffer its owner reads or uses after the
     * call). Functions of one C signature move together, so that a connection's path links no more
     * distinct descriptors (a downcall stub each, spun at the first connection) than it did.
     *
     * <p>Not for memory of an arena that another thread may close (an application's buffers and
     * request or completion arrays, in shared arenas): the session acquire of an {@code ADDRESS}
     * argument is what makes such a close fail during the call instead of freeing memory the C
     * function is using. Those calls (poll_cq, the posts, reg_mr) keep {@code ADDRESS}.
     */
    public static final ValueLayout.OfLong POINTER = ValueLayout.JAVA_LONG;

    /**
     * The functions linked so far in this process (CmLib and IbvLib link on first use): exported
     * symbols by name, functions called through a provider's ops table as {@code struct.member}.
     */
    private static final Set<String> LINKED = ConcurrentHashMap.newKeySet();

    public static MethodHandle errno(SymbolLookup lib, String name, FunctionDescriptor fd) {
        return linked(name, Libraries.LINKER.downcallHandle(lib.findOrThrow(name), fd, Errno.CAPTURE));
    }

    public static MethodHandle plain(SymbolLookup lib, String name, FunctionDescriptor fd) {
        return linked(name, Libraries.LINKER.downcallHandle(lib.findOrThrow(name), fd));
    }

    public static MethodHandle critical(SymbolLookup lib, String name, FunctionDescriptor fd) {
        return linked(name, Libraries.LINKER.downcallHandle(lib.findOrThrow(name), fd, Linker.Option.critical(false)));
    }

    private static MethodHandle linked(String name, MethodHandle h) {
        LINKED.add(name);
        return h;
    }

    /** The names of the functions this process has linked a handle for, so far. */
    public static Set<String> linkedFunctions() {
        return Set.copyOf(LINKED);
    }

    /**
     * A handle with no address bound: the function pointer is the first argument (ops tables).
     * {@code name} is how {@link #linkedFunctions} lists it ({@code "ibv_context_ops.poll_cq"}).
     */
    public static MethodHandle pointer(String name, FunctionDescriptor fd, Linker.Option... options) {
        return linked(name, Libraries.LINKER.downcallHandle(fd, options));
    }

    /** The failure of {@code function} with errno as captured in {@code state}. */
    public static RdmaException errnoFailure(String function, MemorySegment state) {
        return failure(function, Errno.read(state));
    }

    /** The failure of {@code function} with the given error number. */
    public static RdmaException failure(String function, int errno) {
        return new RdmaException(function, errno, Errno.describe(errno));
    }

    /** Checks a call that returns 0 or -1 with errno (librdmacm's convention). */
    public static void checkErrno(String function, int rc, MemorySegment state) {
        if (rc != 0) {
            throw errnoFailure(function, state);
        }
    }

    /**
     * Checks a call that returns 0 or an error number (ibv_modify_qp, ibv_dealloc_pd, ... per
     * their man pages). Some providers return -errno instead; both signs are accepted.
     */
    public static void checkReturned(String function, int rc) {
        if (rc != 0) {
            throw failure(function, Math.abs(rc));
        }
    }

    /** Checks a call that returns a pointer, NULL with errno on failure. */
    public static MemorySegment checkPointer(String function, MemorySegment p, MemorySegment state) {
        if (p.address() == 0L) {
            throw errnoFailure(function, state);
        }
        return p;
    }

    /** For {@code invokeExact} call sites: rethrows unchecked, wraps anything else. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new AssertionError("unexpected checked exception from a downcall", t);
    }

    /** Reads a NUL-terminated C string at {@code p} (at most {@code max} bytes), null for NULL. */
    public static String string(MemorySegment p, long max) {
        return p.address() == 0L ? null : p.reinterpret(max).getString(0);
    }
}
