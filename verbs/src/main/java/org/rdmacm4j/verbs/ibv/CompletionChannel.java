package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Libc;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.PerThread;
import org.rdmacm4j.verbs.internal.Registry;
import java.util.function.Supplier;

/**
 * A completion event channel ({@code struct ibv_comp_channel}): the fd that becomes readable
 * when an armed CQ gets a completion. CQs using it must be closed first.
 *
 * <p>Threads: {@link #getEvent()} only on the CQ poller that owns the channel; {@link #fd()} any.
 */
public final class CompletionChannel implements AutoCloseable {
    private final DeviceContext context;
    private final MemorySegment channel;
    private final Ownership ownership;
    private final int fd;

    private static final long CHANNEL_FD = Layouts.IBV_COMP_CHANNEL.offset("fd");

    /**
     * The out-parameters of ibv_get_cq_event, one pair per calling thread (in rdmacm4j, the
     * poller): nothing is allocated per event nor per channel, and two threads never share a pair,
     * so no lock either. They were a pair per channel, made in the constructor: an auto arena's
     * allocation (a malloc and a Cleaner registration) and two slices per connection.
     */
    private static final PerThread<Cells> CELLS = new PerThread<>(new NewCells());

    /**
     * Makes a thread's {@link Cells}: a named class, not {@code Cells::new}. The in-memory port of the
     * AOT cache's training never initialises this class, so a method reference here spun its lambda
     * class and two lambda forms on the dispatcher inside every cached first connection in the guest
     * (s36-cold-ab1's traces, 7 of 7 JVMs; ~20 ms on the host); a named class is only loaded.
     */
    private static final class NewCells implements Supplier<Cells> {
        @Override
        public Cells get() {
            return new Cells();
        }
    }

    /** {@code struct ibv_cq *} and {@code void *} cells, in one allocation. */
    private static final class Cells {
        final MemorySegment cq;
        final MemorySegment ctx;

        Cells() {
            // Arena.ofAuto(): the cells live as long as their thread's ThreadLocal entry
            MemorySegment both = Arena.ofAuto().allocate(2 * ADDRESS.byteSize(), ADDRESS.byteAlignment());
            this.cq = both.asSlice(0, ADDRESS.byteSize());
            this.ctx = both.asSlice(ADDRESS.byteSize(), ADDRESS.byteSize());
        }
    }

    CompletionChannel(DeviceContext context, MemorySegment channel) {
        this.context = context;
        this.channel = channel;
        int f = channel.get(JAVA_INT_UNALIGNED, CHANNEL_FD);
        this.fd = f;
        // the description holds values, never this wrapper: the wrapper's cleaner holds the description
        this.ownership = new Ownership(new What(f), context.ownership());
        ownership.watch(this);
    }

    MemorySegment segment() {
        ownership.ensureOpen();
        return channel;
    }

    Ownership ownership() {
        return ownership;
    }

    DeviceContext context() {
        return context;
    }

    /** The channel's fd, for poll/epoll. */
    public int fd() {
        return fd;
    }

    /** O_NONBLOCK on the fd: {@link #getEvent()} then returns null when nothing is pending. */
    public void setNonBlocking(boolean nonBlocking) {
        ownership.ensureOpen();
        // The kernel makes the fd O_RDONLY with no other status flag (an anon inode; F_SETFL can
        // change only O_NONBLOCK, O_APPEND, O_ASYNC, O_DIRECT, O_NOATIME, none of which this class
        // sets), so F_SETFL alone does it: no F_GETFL first, one syscall per connection fewer.
        Libc.setNonBlockingKnownFlags(fd, nonBlocking);
    }

    /**
     * {@code ibv_get_cq_event}: the CQ that completed, or null (non-blocking, nothing pending).
     * The event must be acked on that CQ ({@link CompletionQueue#ackEvents()}) before it is
     * closed; the CQ counts what is outstanding. Blocking on a blocking fd.
     */
    public CompletionQueue getEvent() {
        MemorySegment self = segment();
        Cells cells = CELLS.get();
        if (!IbvLib.getCqEvent(self, cells.cq, cells.ctx)) {
            return null;
        }
        long address = cells.cq.get(JAVA_LONG_UNALIGNED, 0);   // only looked up: no segment for it
        CompletionQueue cq = Registry.get(address, CompletionQueue.class);
        if (cq == null) {
            throw new IllegalStateException("completion event for a CQ unknown to this JVM: 0x"
                    + Long.toHexString(address));
        }
        cq.eventReceived();
        return cq;
    }

    /**
     * {@code ibv_get_cq_event} for a channel that serves exactly one CQ, without allocating: true if
     * an event for {@code expected} was taken (count it with {@link CompletionQueue#ackEvents()}
     * as usual), false if none is pending (non-blocking). IllegalStateException if the event names
     * another CQ.
     */
    public boolean takeEvent(CompletionQueue expected) {
        MemorySegment self = segment();
        Cells cells = CELLS.get();
        if (!IbvLib.getCqEvent(self, cells.cq, cells.ctx)) {
            return false;
        }
        long address = cells.cq.get(JAVA_LONG_UNALIGNED, 0);
        if (address != expected.segment().address()) {
            throw new IllegalStateException("completion event for CQ 0x" + Long.toHexString(address)
                    + ", not for " + expected);
        }
        expected.eventReceived();
        return true;
    }

    /** Waits up to {@code timeout} for the fd, then gets one event; null on timeout. */
    public CompletionQueue getEvent(Duration timeout) {
        ownership.ensureOpen();
        if (!Libc.awaitReadable(fd, timeout.toMillis())) {
            return null;
        }
        return getEvent();
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /** {@code ibv_destroy_comp_channel}. Its CQs must be closed first. Idempotent. */
    @Override
    public void close() {
        ownership.close(new Destroy(channel));
    }

    /** ibv_destroy_comp_channel: a record for the reason CompletionQueue's Destroy is one. */
    private record Destroy(MemorySegment channel) implements Runnable {
        @Override
        public void run() {
            IbvLib.destroyCompChannel(channel.address());
        }
    }

    @Override
    public String toString() {
        return ownership.toString();
    }

    /**
     * The description {@link Ownership} builds on first use: a record, not a lambda, so making one links
     * no call site at a process's first connection (a lambda's would be, since the build's AOT training
     * runs without a device and never reaches this constructor).
     */
    private record What(int fd) implements Supplier<String> {
        @Override
        public String get() {
            return "CompletionChannel(fd " + fd + ")";
        }
    }
}
