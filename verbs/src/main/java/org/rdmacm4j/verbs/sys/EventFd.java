package org.rdmacm4j.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.internal.CallGuard;
import org.rdmacm4j.verbs.internal.Libc;
import org.rdmacm4j.verbs.internal.Native;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.SysLib;

/**
 * An eventfd ({@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}, counter mode): the way other
 * threads wake a thread that waits in {@link Epoll#await}. {@link #signal()} adds 1 to the
 * counter; the descriptor is readable while the counter is non-zero; {@link #drain()} reads the
 * counter and resets it to 0.
 *
 * <p>Threads: {@link #signal()} may be called from any number of threads at once and allocates
 * nothing: every signal writes the same 8 bytes (the value 1) from one buffer that is filled
 * once and never written again, so concurrent writes share it safely; the errno capture is per
 * thread. {@link #drain()} belongs to one thread, the one that awaits (it reads into this
 * object's own buffer). {@link #close()} may be called from any thread: it refuses new calls,
 * waits for those in flight (each returns at once: the descriptor is non-blocking), then closes
 * the descriptor, so a late signal is an {@link IllegalStateException}, never a write to a
 * descriptor number the process has reused. Idempotent.
 */
public final class EventFd implements AutoCloseable {
    // The 8-byte value 1 that every signal writes: filled here, then only read (by the kernel).
    private static final MemorySegment ONE = Arena.global().allocate(JAVA_LONG);
    private static final long ONE_ADDRESS = ONE.address();   // what write(2) takes (Native.POINTER)

    static {
        ONE.set(JAVA_LONG_UNALIGNED, 0, 1L);
    }

    private final int fd;
    private final MemorySegment counter = Arena.ofAuto().allocate(JAVA_LONG);   // drain's buffer
    // its address, what read(2) takes (Native.POINTER); the segment stays reachable through this
    // object, which drain uses after the call (guard.exit)
    private final long counterAddress = counter.address();
    private final Ownership ownership;
    private final CallGuard guard = new CallGuard();

    private EventFd(int fd) {
        this.fd = fd;
        this.ownership = new Ownership("EventFd(fd " + fd + ")");
        ownership.watch(this);
    }

    /** {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}. */
    public static EventFd create() {
        return new EventFd(SysLib.eventfd(0, SysLib.EFD_NONBLOCK | SysLib.EFD_CLOEXEC));
    }

    /** The descriptor, to register with {@link Epoll#add}. Any thread. */
    public int fd() {
        return fd;
    }

    /**
     * Adds 1 to the counter (write of a uint64 1), making the descriptor readable. Any thread,
     * concurrently; allocates nothing. EAGAIN (the counter is at its maximum, so the
     * descriptor is readable already) is ignored; any other failure is an {@link RdmaException}.
     */
    public void signal() {
        enter();
        try {
            while (true) {
                long n = SysLib.write(fd, ONE_ADDRESS, 8);
                if (n == 8 || n == -Libc.EAGAIN) {
                    return;
                }
                if (n != -Libc.EINTR) {
                    throw n < 0 ? Native.failure("write(eventfd)", (int) -n)
                            : new IllegalStateException("write(eventfd) wrote " + n + " of 8 bytes");
                }
            }
        } finally {
            guard.exit();
        }
    }

    /**
     * Reads and resets the counter: the sum of the signals since the last drain, 0 if there was
     * none (EAGAIN). The awaiting thread only; allocates nothing.
     */
    public long drain() {
        enter();
        try {
            while (true) {
                long n = SysLib.read(fd, counterAddress, 8);
                if (n == 8) {
                    return counter.get(JAVA_LONG_UNALIGNED, 0);
                }
                if (n == -Libc.EAGAIN) {
                    return 0;
                }
                if (n != -Libc.EINTR) {
                    throw n < 0 ? Native.failure("read(eventfd)", (int) -n)
                            : new IllegalStateException("read(eventfd) read " + n + " of 8 bytes");
                }
            }
        } finally {
            guard.exit();
        }
    }

    private void enter() {
        guard.enterOrThrow(ownership);
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /**
     * Closes the descriptor. Idempotent; any thread (waits for calls in flight, see the class
     * comment). close(2) releases the descriptor even when it reports an error, so the object
     * is closed either way and the error is thrown afterwards.
     */
    @Override
    public void close() {
        guard.closeDescriptor(ownership, fd);
    }

    @Override
    public String toString() {
        return ownership.toString();
    }
}
