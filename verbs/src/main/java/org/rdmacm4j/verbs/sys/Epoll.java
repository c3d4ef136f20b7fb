package org.rdmacm4j.verbs.sys;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.internal.CallGuard;
import org.rdmacm4j.verbs.internal.Libc;
import org.rdmacm4j.verbs.internal.Native;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.PerThread;
import org.rdmacm4j.verbs.internal.SysLib;

/**
 * An epoll instance ({@code epoll_create1(EPOLL_CLOEXEC)}) whose registrations are all
 * level-triggered {@code EPOLLIN}, each carrying a caller-chosen 64-bit token as its
 * {@code epoll_data}. The ready events of the last {@link #await} are read with {@link #token}
 * and {@link #events} from an array allocated once at {@link #create(int)}: waiting allocates
 * nothing.
 *
 * <p>Threads: one thread (the owner) calls {@link #await}, {@link #count}, {@link #token} and
 * {@link #events}. {@link #add} and {@link #remove} may be called from any thread, also while
 * the owner waits (epoll_ctl is thread-safe in the kernel; each thread fills its own
 * {@code struct epoll_event}, kept per thread, so concurrent calls share no memory). A
 * descriptor added while the owner waits is reported by that same wait if it is ready.
 * {@link #close} may be called from any thread: it refuses new calls, waits for those in flight
 * (an await in flight for at most its timeout), then closes the descriptor; it is idempotent.
 * Any call after close is an {@link IllegalStateException} before any native call.
 *
 * <p>Failures are {@link RdmaException}s naming the call: adding a descriptor that is already
 * registered is EEXIST; removing one that is not registered is ENOENT, and one already closed
 * is EBADF (the kernel drops a registration by itself when the last descriptor of the open file
 * is closed, so remove before closing). Neither is tolerated silently: both mean the caller's
 * bookkeeping is wrong.
 */
public final class Epoll implements AutoCloseable {
    /** The ready-event capacity of {@link #create()}. */
    public static final int DEFAULT_MAX_EVENTS = 64;
    /** The largest capacity {@link #create(int)} accepts. */
    public static final int MAX_EVENTS_LIMIT = 1 << 16;

    /** The {@code events} bit for readable. */
    public static final int IN = SysLib.EPOLLIN;
    /** The {@code events} bit for an error condition (always reported, never requested). */
    public static final int ERR = SysLib.EPOLLERR;
    /** The {@code events} bit for hang-up (always reported, never requested). */
    public static final int HUP = SysLib.EPOLLHUP;

    private static final long STRIDE = SysLib.EPOLL_EVENT.size();
    private static final long EVENTS = SysLib.EV_EVENTS;
    private static final long DATA = SysLib.EV_DATA;

    // epoll_ctl's in-parameter, one per thread (add may run on any thread): no allocation per
    // call after a thread's first, and no memory shared between concurrent add calls. A PerThread:
    // a bare ThreadLocal lookup is a JNI call into the VM under C1 (PerThread's comment).
    private static final PerThread<MemorySegment> CTL_EVENT = new PerThread<>(
            () -> Arena.ofAuto().allocate(SysLib.EPOLL_EVENT.size(), 8));

    private final int epfd;
    private final int capacity;
    private final MemorySegment ready;   // struct epoll_event[capacity]; owner thread only
    // its address, what epoll_wait takes (Native.POINTER); the segment stays reachable through
    // this object, which await uses after the call (guard.exit)
    private final long readyAddress;
    private final Ownership ownership;
    private final CallGuard guard = new CallGuard();
    private int count;                   // entries the last await wrote; owner thread only

    private Epoll(int epfd, int capacity) {
        this.epfd = epfd;
        this.capacity = capacity;
        this.ready = Arena.ofAuto().allocate(STRIDE * capacity, 8);
        this.readyAddress = ready.address();
        this.ownership = new Ownership("Epoll(fd " + epfd + ")");
        ownership.watch(this);
    }

    /** {@code epoll_create1(EPOLL_CLOEXEC)} with room for {@link #DEFAULT_MAX_EVENTS} ready events per wait. */
    public static Epoll create() {
        return create(DEFAULT_MAX_EVENTS);
    }

    /** {@code epoll_create1(EPOLL_CLOEXEC)} with room for {@code maxEvents} ready events per wait. */
    public static Epoll create(int maxEvents) {
        checkArgument(maxEvents >= 1 && maxEvents <= MAX_EVENTS_LIMIT,
                "maxEvents %s is outside 1..%s", maxEvents, MAX_EVENTS_LIMIT);
        return new Epoll(SysLib.epollCreate1(SysLib.EPOLL_CLOEXEC), maxEvents);
    }

    /** The epoll descriptor. Any thread. */
    public int fd() {
        return epfd;
    }

    /** How many ready events one {@link #await} can report. */
    public int capacity() {
        return capacity;
    }

    /**
     * {@code epoll_ctl(EPOLL_CTL_ADD)}: reports {@code fd} while it is readable (level-triggered
     * {@code EPOLLIN}; ERR and HUP are reported too), with {@code token} as its data. Any thread.
     */
    public void add(int fd, long token) {
        requireFd(fd);
        enter();
        try {
            MemorySegment ev = CTL_EVENT.get();
            ev.set(JAVA_INT_UNALIGNED, EVENTS, SysLib.EPOLLIN);
            ev.set(JAVA_LONG_UNALIGNED, DATA, token);
            SysLib.epollCtl(epfd, SysLib.EPOLL_CTL_ADD, fd, ev.address());   // the thread's, held by CTL_EVENT
        } finally {
            guard.exit();
        }
    }

    /** {@code epoll_ctl(EPOLL_CTL_DEL)}: {@code fd} is no longer reported. Any thread. */
    public void remove(int fd) {
        requireFd(fd);
        enter();
        try {
            SysLib.epollCtl(epfd, SysLib.EPOLL_CTL_DEL, fd, 0L);
        } finally {
            guard.exit();
        }
    }

    /**
     * Hand-written, not checkArgument with the int: that overload is too big for C1 to inline (its
     * failure path boxes), and the dispatcher adds and removes fds per connection and waits per turn.
     */
    private static void requireFd(int fd) {
        if (fd < 0) {
            throw new IllegalArgumentException("fd " + fd);
        }
    }

    /**
     * {@code epoll_wait} for at most {@code timeoutMillis} (-1: no bound; callers that must
     * stay responsive always pass one; above {@code Integer.MAX_VALUE} it is capped there). EINTR is retried with the time left. Returns how many
     * events are ready, 0 on timeout; read them with {@link #token} and {@link #events}.
     * Owner thread only. Allocates nothing.
     */
    public int await(long timeoutMillis) {
        if (timeoutMillis < -1) {   // hand-written: see requireFd
            throw new IllegalArgumentException("timeoutMillis " + timeoutMillis + " (-1 is no bound)");
        }
        enter();
        try {
            count = 0;
            int timeout = (int) Math.min(timeoutMillis, Integer.MAX_VALUE);   // epoll_wait takes an int
            long deadline = timeout < 0 ? 0 : System.nanoTime() + timeout * 1_000_000L;
            while (true) {
                int n = SysLib.epollWait(epfd, readyAddress, capacity, timeout);
                if (n >= 0) {
                    count = n;
                    return n;
                }
                if (-n != Libc.EINTR) {
                    throw Native.failure("epoll_wait", -n);
                }
                if (timeout >= 0) {
                    long leftMs = Math.max(0, (deadline - System.nanoTime() + 999_999) / 1_000_000L);
                    timeout = (int) Math.min(leftMs, Integer.MAX_VALUE);
                }
            }
        } finally {
            guard.exit();
        }
    }

    /** How many events the last {@link #await} reported. Owner thread only. */
    public int count() {
        ownership.ensureOpen();
        return count;
    }

    /** The token of ready event {@code i} (0 &lt;= i &lt; the last await's count). Owner thread only. */
    public long token(int i) {
        return ready.get(JAVA_LONG_UNALIGNED, at(i) + DATA);
    }

    /** The {@code events} bits ({@link #IN}, {@link #ERR}, {@link #HUP}) of ready event {@code i}. Owner thread only. */
    public int events(int i) {
        return ready.get(JAVA_INT_UNALIGNED, at(i) + EVENTS);
    }

    private long at(int i) {
        ownership.ensureOpen();
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("event " + i + " of " + count);
        }
        return i * STRIDE;
    }

    private void enter() {
        guard.enterOrThrow(ownership);
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /**
     * Closes the epoll descriptor. Idempotent; any thread (waits for calls in flight, see the
     * class comment). close(2) releases the descriptor even when it reports an error, so the
     * object is closed either way and the error is thrown afterwards.
     */
    @Override
    public void close() {
        guard.closeDescriptor(ownership, epfd);
    }

    @Override
    public String toString() {
        return ownership.toString();
    }
}
