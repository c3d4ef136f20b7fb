package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/** The few libc calls the event fds need: fcntl (O_NONBLOCK) and poll (bounded waits). Any thread. */
public final class Libc {
    private Libc() { }

    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 04000;
    public static final short POLLIN = 0x001;
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int EINVAL = 22;

    public static final CStruct POLLFD = CStruct.struct("struct pollfd")
            .field("fd", JAVA_INT).field("events", JAVA_SHORT).field("revents", JAVA_SHORT).build();

    // fcntl is variadic: the third argument is passed as a variadic int.
    private static final MethodHandle FCNTL_GET = Libraries.LINKER.downcallHandle(
            Libraries.libc().findOrThrow("fcntl"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT),
            Errno.CAPTURE);
    private static final MethodHandle FCNTL_SET = Libraries.LINKER.downcallHandle(
            Libraries.libc().findOrThrow("fcntl"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
            Errno.CAPTURE, Linker.Option.firstVariadicArg(2));
    /** Only for blocking waits on one fd (not the dispatcher's): linked on first use. */
    private static final class Poll {
        static final MethodHandle H = Native.errno(Libraries.libc(), "poll",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }

    /** Sets or clears O_NONBLOCK on {@code fd}. */
    public static void setNonBlocking(int fd, boolean nonBlocking) {
        try {
            MemorySegment st = Errno.state();
            int flags = (int) FCNTL_GET.invokeExact(st, fd, F_GETFL);
            if (flags < 0) {
                throw Native.errnoFailure("fcntl(F_GETFL)", st);
            }
            int wanted = nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
            if (wanted != flags) {
                int rc = (int) FCNTL_SET.invokeExact(st, fd, F_SETFL, wanted);
                Native.checkErrno("fcntl(F_SETFL)", rc, st);
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Sets O_NONBLOCK (or clears it) with one fcntl(F_SETFL) and no F_GETFL, for a descriptor whose
     * other status flags the caller knows are clear (a completion channel's fd as the kernel made
     * it: O_RDONLY, nothing settable). One syscall instead of two per connection.
     */
    public static void setNonBlockingKnownFlags(int fd, boolean nonBlocking) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) FCNTL_SET.invokeExact(st, fd, F_SETFL, nonBlocking ? O_NONBLOCK : 0);
            Native.checkErrno("fcntl(F_SETFL)", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** True if O_NONBLOCK is set on {@code fd}. */
    public static boolean isNonBlocking(int fd) {
        try {
            MemorySegment st = Errno.state();
            int flags = (int) FCNTL_GET.invokeExact(st, fd, F_GETFL);
            if (flags < 0) {
                throw Native.errnoFailure("fcntl(F_GETFL)", st);
            }
            return (flags & O_NONBLOCK) != 0;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * Waits until {@code fd} is readable or {@code timeoutMs} passes (retrying EINTR with the
     * time left). Returns true if readable. Blocking: never on a thread that must not block.
     */
    public static boolean awaitReadable(int fd, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pfd = arena.allocate(POLLFD.size(), POLLFD.alignment());
            while (true) {
                pfd.set(JAVA_INT_UNALIGNED, POLLFD.offset("fd"), fd);
                pfd.set(JAVA_SHORT_UNALIGNED, POLLFD.offset("events"), POLLIN);
                pfd.set(JAVA_SHORT_UNALIGNED, POLLFD.offset("revents"), (short) 0);
                long leftMs = Math.max(0, (deadline - System.nanoTime() + 999_999) / 1_000_000L);
                MemorySegment st = Errno.state();
                int rc = (int) Poll.H.invokeExact(st, pfd, 1L, (int) Math.min(leftMs, Integer.MAX_VALUE));
                if (rc > 0) {
                    return true;
                }
                if (rc == 0) {
                    return false;
                }
                if (Errno.read(st) != EINTR) {
                    throw Native.errnoFailure("poll", st);
                }
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
