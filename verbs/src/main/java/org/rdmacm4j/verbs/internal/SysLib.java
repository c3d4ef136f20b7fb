package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.rdmacm4j.verbs.internal.Native.POINTER;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The libc calls behind {@code org.rdmacm4j.verbs.sys}: epoll_create1, epoll_ctl, epoll_wait,
 * eventfd, read, write, close. Every handle captures errno (the first argument is
 * {@link Errno#state()}) except the first tries of epoll_wait, read and write, which learn errno by a
 * second, capturing call after a failure; none is critical (epoll_wait blocks). Buffers are passed by address
 * ({@link Native#POINTER}: the dispatcher's wait loop makes these calls on every wake-up), out of
 * memory the caller holds across the call. Any thread.
 */
public final class SysLib {
    private SysLib() { }

    public static final int EPOLLIN = 0x001;
    public static final int EPOLLERR = 0x008;
    public static final int EPOLLHUP = 0x010;
    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLL_CLOEXEC = 02000000;
    public static final int EFD_NONBLOCK = 04000;
    public static final int EFD_CLOEXEC = 02000000;

    /**
     * {@code struct epoll_event}: PACKED on x86-64 (glibc's {@code __EPOLL_PACKED}), so 12 bytes,
     * alignment 1, the 64-bit {@code data} at offset 4. Hence the unaligned layouts: an entry of
     * an array sits at 12 * i, and its data at 12 * i + 4 is never 8-aligned. (Other
     * architectures do not pack it; this project targets x86-64 only, and
     * LayoutConformanceTest checks this against the header.)
     */
    public static final CStruct EPOLL_EVENT = CStruct.struct("struct epoll_event")
            .field("events", JAVA_INT_UNALIGNED).field("data", JAVA_LONG_UNALIGNED).build();
    public static final long EV_EVENTS = EPOLL_EVENT.offset("events");
    public static final long EV_DATA = EPOLL_EVENT.offset("data");

    // int epoll_create1(int flags)
    private static final MethodHandle EPOLL_CREATE1 = Native.errno(Libraries.libc(), "epoll_create1",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    // int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
    private static final MethodHandle EPOLL_CTL = Native.errno(Libraries.libc(), "epoll_ctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, POINTER));
    // int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
    /** Only after a failed epoll_wait: linked on first use (issue 21 item 3: each link is tens of ms in the guest). */
    private static final class EpollWaitCapturing {
        static final MethodHandle H = Native.errno(Libraries.libc(), "epoll_wait",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, POINTER, JAVA_INT, JAVA_INT));
    }

    /** Without errno capture, tried first (the capture path allocates per call where C1 runs it). */
    private static final MethodHandle EPOLL_WAIT_PLAIN = Native.plain(Libraries.libc(), "epoll_wait",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, POINTER, JAVA_INT, JAVA_INT));
    // int eventfd(unsigned int initval, int flags)
    private static final MethodHandle EVENTFD = Native.errno(Libraries.libc(), "eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    // ssize_t read(int fd, void *buf, size_t count) and ssize_t write(int fd, const void *buf, size_t
    // count): without errno capture, tried first, as epoll_wait. Only the eventfd reads and writes
    // through them (every wake-up of the dispatcher and the poller, several per connection), and
    // there a failure is rare (a read only follows epoll's readiness) and changes nothing.
    private static final MethodHandle READ = Native.plain(Libraries.libc(), "read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, POINTER, JAVA_LONG));
    private static final MethodHandle WRITE = Native.plain(Libraries.libc(), "write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, POINTER, JAVA_LONG));
    /** Only after a failed read or write: linked on first use. */
    private static final class ReadCapturing {
        static final MethodHandle H = Native.errno(Libraries.libc(), "read",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, POINTER, JAVA_LONG));
    }
    private static final class WriteCapturing {
        static final MethodHandle H = Native.errno(Libraries.libc(), "write",
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, POINTER, JAVA_LONG));
    }
    // int close(int fd)
    private static final MethodHandle CLOSE = Native.errno(Libraries.libc(), "close",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    public static int epollCreate1(int flags) {
        try {
            MemorySegment st = Errno.state();
            int fd = (int) EPOLL_CREATE1.invokeExact(st, flags);
            if (fd < 0) {
                throw Native.errnoFailure("epoll_create1", st);
            }
            return fd;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** epoll_ctl; {@code event} (an address) may be 0 (NULL) for EPOLL_CTL_DEL. */
    public static void epollCtl(int epfd, int op, int fd, long event) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) EPOLL_CTL.invokeExact(st, epfd, op, fd, event);
            if (rc != 0) {
                throw Native.errnoFailure(op == EPOLL_CTL_ADD ? "epoll_ctl(EPOLL_CTL_ADD)"
                        : op == EPOLL_CTL_DEL ? "epoll_ctl(EPOLL_CTL_DEL)" : "epoll_ctl", st);
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** epoll_wait once: the count, or -errno (the caller retries EINTR). */
    public static int epollWait(int epfd, long events, int maxEvents, int timeoutMs) {
        try {
            // A failed epoll_wait changes nothing, so learning errno by asking again with capture is
            // safe (an EINTR simply becomes a second wait, which the caller's deadline bounds).
            int fast = (int) EPOLL_WAIT_PLAIN.invokeExact(epfd, events, maxEvents, timeoutMs);
            if (fast >= 0) {
                return fast;
            }
            MemorySegment st = Errno.state();
            int n = (int) EpollWaitCapturing.H.invokeExact(st, epfd, events, maxEvents, timeoutMs);
            return n >= 0 ? n : -Errno.read(st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static int eventfd(int initval, int flags) {
        try {
            MemorySegment st = Errno.state();
            int fd = (int) EVENTFD.invokeExact(st, initval, flags);
            if (fd < 0) {
                throw Native.errnoFailure("eventfd", st);
            }
            return fd;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * read(2) of a descriptor whose failed read changes nothing (an eventfd): bytes read, or -errno.
     * Made without errno capture; only a failure is made again with capture to learn errno, and that
     * second read may succeed (the counter was signalled in between), which is a read like any other.
     */
    public static long read(int fd, long buf, long count) {
        try {
            long fast = (long) READ.invokeExact(fd, buf, count);
            if (fast >= 0) {
                return fast;
            }
            MemorySegment st = Errno.state();
            long n = (long) ReadCapturing.H.invokeExact(st, fd, buf, count);
            return n >= 0 ? n : -Errno.read(st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * write(2) of a descriptor whose failed write changes nothing (an eventfd): bytes written, or
     * -errno; made as {@link #read}, capturing errno only on a second try after a failure.
     */
    public static long write(int fd, long buf, long count) {
        try {
            long fast = (long) WRITE.invokeExact(fd, buf, count);
            if (fast >= 0) {
                return fast;
            }
            MemorySegment st = Errno.state();
            long n = (long) WriteCapturing.H.invokeExact(st, fd, buf, count);
            return n >= 0 ? n : -Errno.read(st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * close(2): 0, or the errno. On Linux the descriptor is released even when close reports an
     * error (EINTR, EIO), so a close is never retried.
     */
    public static int close(int fd) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) CLOSE.invokeExact(st, fd);
            return rc == 0 ? 0 : Errno.read(st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
