package org.rdmacm4j.cm.core.internal.connection;

import static com.google.common.base.Preconditions.checkArgument;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.RegisteredRegion;
import org.rdmacm4j.cm.core.RemoteRegion;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.Failures;
import org.rdmacm4j.cm.core.internal.poll.CompletionWatch;
import org.rdmacm4j.cm.core.internal.poll.SlotPool;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * One-sided operations of one connection (RDMA WRITE, READ, compare-and-swap, fetch-and-add) and
 * the regions registered for them. At most {@code depth} operations (the connection's
 * {@link org.rdmacm4j.cm.core.QpCapabilities#oneSidedDepth()}) are posted at once; more wait in a
 * bounded queue. The 8-byte result slots of atomics are leased from the pool by the first
 * operation, so an idle connection holds none whatever its depth. Regions live at most as long as the connection: {@link #release} (after
 * the QP is destroyed) deregisters what the application left open.
 *
 * <p>Threads: operations and registration from any thread, under this object's lock (the first
 * operation starts the CQ's registration with its poller under it, before posting: lock order
 * this, then the registration's monitor); completions on the connection's poller;
 * {@link #closing} and {@link #release} from the dispatcher.
 */
public final class OneSided {
    /** wr_id kind of one-sided operations (DataPath uses 1..3). */
    public static final long KIND = 4L << 56;
    public static final long KIND_MASK = 0xFFL << 56;
    private static final int MAX_WAITING = 4096;

    /** A registered region; counts the operations that use it. */
    public final class Region implements RegisteredRegion {
        final MemoryRegion mr;
        final MemorySegment segment;
        final AtomicInteger inUse = new AtomicInteger();
        private boolean closed;

        Region(MemoryRegion mr, MemorySegment segment) {
            this.mr = mr;
            this.segment = segment;
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public RemoteRegion toRemote() {
            return new RemoteRegion(mr.address(), mr.rkey(), mr.length());
        }

        @Override
        public void close() {
            synchronized (OneSided.this) {
                if (closed) {
                    return;
                }
                if (inUse.get() > 0) {
                    throw new IllegalStateException("region of " + segment.byteSize() + " bytes is still used by "
                            + inUse.get() + " posted operation(s); close it after they complete");
                }
                closed = true;
                regions.remove(this);
            }
            mr.close();
        }

        @Override
        public String toString() {
            return "RegisteredRegion(" + segment.byteSize() + " bytes, rkey 0x" + Integer.toHexString(mr.rkey()) + ")";
        }
    }

    /** A posted or waiting operation. {@code atomic}: the result is the 8-byte word in the slot. */
    private record Op(WrOpcode opcode, Region local, long localOffset, long remoteAddress, int rkey, int length,
                      long compareAdd, long swap, CmFuture<Object> future) {
        boolean atomic() {
            return opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        }
    }

    private final QueuePair qp;
    private final ProtectionDomain pd;
    /** Started before the first operation is posted: the CQ is registered with its poller only then. */
    private final CompletionWatch watch;
    /** The watch was started (under the lock): later operations skip it. */
    private boolean watched;
    private final SlotPool pool;
    private final int depth;
    /** One 8-byte result slot per posted operation, leased by the first one (under the lock). */
    private SlotPool.Slot[] results;
    /**
     * The request posted for each operation, allocated by the first one (under the lock): most
     * connections never start a one-sided operation, and the shared arena behind it costs a
     * handshake with every JVM thread when it is closed.
     */
    private SendRequests send;
    private Op[] posted;
    private int[] free;
    private int freeCount;
    private final ArrayDeque<Op> waiting = new ArrayDeque<>();
    private final List<Region> regions = new ArrayList<>();
    private volatile ConnectionEnd owner;
    private boolean closing;
    private boolean released;
    private boolean errorReported;

    public OneSided(QueuePair qp, ProtectionDomain pd, SlotPool pool, int depth, CompletionWatch watch) {
        checkArgument(depth >= 1, "one-sided depth must be at least 1, was %s", depth);
        this.qp = qp;
        this.pd = pd;
        this.watch = watch;
        this.pool = pool;
        this.depth = depth;
        this.freeCount = depth;   // no slot leased yet; post() leases them all on first use
    }

    /** The first operation's lease of the per-slot state. Caller holds the lock. */
    private void leaseSlots() {
        results = pool.lease(depth, 8);
        posted = new Op[depth];
        free = new int[depth];
        for (int i = 0; i < depth; i++) {
            free[i] = depth - 1 - i;
        }
    }

    void bind(ConnectionEnd connection) {
        this.owner = connection;
    }

    public synchronized RegisteredRegion register(MemorySegment segment) {
        if (closing || released) {
            throw new IllegalStateException(owner + " is closed: cannot register memory on it");
        }
        MemoryRegion mr = pd.register(segment, Access.ALL_REMOTE);   // IllegalArgumentException for heap memory
        Region r = new Region(mr, segment);
        regions.add(r);
        return r;
    }

    public CmFuture<Object> transfer(WrOpcode opcode, RegisteredRegion local, long localOffset, RemoteRegion remote,
                              long remoteOffset, int length) {
        Region r = ours(local);
        // Hand-written, not checkArgument: every one-sided operation passes here, and four long
        // arguments would be boxed (and put in an array) on the happy path.
        if (localOffset < 0 || length < 0 || localOffset > r.segment.byteSize() - length) {
            throw new IllegalArgumentException("[" + localOffset + ", " + localOffset + " + " + length
                    + ") is outside the local region of " + r.segment.byteSize() + " bytes");
        }
        remote.checkBounds(remoteOffset, length);
        return submit(new Op(opcode, r, localOffset, remote.address() + remoteOffset, remote.rkey(), length, 0, 0,
                new CmFuture<>()));
    }

    public CmFuture<Object> atomic(WrOpcode opcode, RemoteRegion remote, long offset, long compareAdd, long swap) {
        remote.checkBounds(offset, 8);
        long address = remote.address() + offset;
        // Hand-written: the message's hex digits would be built on every atomic as a checkArgument argument.
        if ((address & 7) != 0) {
            throw new IllegalArgumentException("atomic target 0x" + Long.toHexString(address) + " is not 8-byte aligned");
        }
        return submit(new Op(opcode, null, 0, address, remote.rkey(), 8, compareAdd, swap, new CmFuture<>()));
    }

    private Region ours(RegisteredRegion local) {
        // Hand-written: the pattern binds r for the return below, which a checkArgument call cannot.
        if (!(local instanceof Region r) || !regions.contains(r)) {
            throw new IllegalArgumentException(local + " is not an open region registered on this connection");
        }
        return r;
    }

    private synchronized CmFuture<Object> submit(Op op) {
        if (closing || released || !(watched || (watched = watch.start()))) {
            // (a CQ no longer polled is a connection being torn down: its completions would be lost)
            op.future().completeExceptionally(new ConnectionClosedException(owner + " is closing", List.of()));
        } else if (waiting.size() >= MAX_WAITING) {
            op.future().completeExceptionally(new DataPathException(owner + ": " + MAX_WAITING
                    + " one-sided operations are already waiting", null, List.of()));
        } else {
            if (op.local() != null) {
                op.local().inUse.incrementAndGet();   // released by its completion (or a failed post)
            }
            if (freeCount > 0 && waiting.isEmpty()) {
                post(op);
            } else {
                waiting.add(op);
            }
        }
        return op.future();
    }

    /** Posts {@code op}; the caller holds the lock and has checked for a free slot. */
    private void post(Op op) {
        if (send == null) {
            send = SendRequests.allocate(1, 1);
        }
        if (results == null) {
            leaseSlots();
        }
        int slot = free[--freeCount];
        long wrId = KIND | slot;
        send.set(0, wrId, op.opcode(), SendFlags.SIGNALED);
        if (op.atomic()) {
            SlotPool.Slot result = results[slot];
            send.sge(0, 0, result.address(), 8, result.lkey()).atomic(0, op.remoteAddress(), op.rkey(),
                    op.compareAdd(), op.swap());
        } else {
            if (op.length() > 0) {
                send.sge(0, 0, op.local().mr.address() + op.localOffset(), op.length(), op.local().mr.lkey());
            }
            send.rdma(0, op.remoteAddress(), op.rkey());
        }
        try {
            qp.postSend(send, 1);
        } catch (RdmaException e) {
            free[freeCount++] = slot;
            if (op.local() != null) {
                op.local().inUse.decrementAndGet();
            }
            op.future().completeExceptionally(new DataPathException(owner + ": " + e.getMessage(), null, List.of()));
            return;
        }
        posted[slot] = op;
    }

    /** A completion of kind {@link #KIND}. Poller thread. */
    public void onCompletion(WorkCompletions wc, int i) {
        int slot = (int) (wc.wrId(i) & ~KIND_MASK);
        Op op;
        boolean flush;
        Object value = null;
        synchronized (this) {
            if (posted == null) {
                return;   // nothing was ever posted here
            }
            op = posted[slot];
            posted[slot] = null;
            if (op != null && op.atomic() && wc.statusValue(i) == WcStatus.SUCCESS.value()) {
                value = results[slot].segment().get(ValueLayout.JAVA_LONG, 0);   // before the slot is reused
            }
            free[freeCount++] = slot;
            if (op != null && op.local() != null) {
                op.local().inUse.decrementAndGet();
            }
            flush = wc.statusValue(i) == WcStatus.WR_FLUSH_ERR.value();
            Op next;
            while (!closing && freeCount > 0 && (next = waiting.poll()) != null) {
                post(next);
            }
        }
        if (op == null) {
            return;
        }
        ConnectionEnd c = owner;
        if (wc.statusValue(i) != WcStatus.SUCCESS.value()) {
            String name = "IBV_WC_" + wc.status(i).name();
            op.future().completeExceptionally(flush || closing
                    ? Failures.cutShort(c + ": closed before the operation completed", c == null ? null : c.failure())
                    : Failures.completionFailed(c + ": " + op.opcode() + " failed with " + name, wc.status(i),
                            List.of()));
            if (!flush && !closing) {
                boolean first;
                synchronized (this) {
                    first = !errorReported;
                    errorReported = true;
                }
                if (first && c != null) {
                    c.dataPathFailed(Failures.completionFailed(c + ": " + op.opcode() + " failed with " + name
                            + "; the connection is being torn down", wc.status(i), c.history()));
                }
            }
            return;
        }
        Object result = value;
        if (c != null) {
            c.callbacks().execute(new CmFuture.CompleteTask<>(op.future(), result, null));
        } else {
            op.future().complete(result);
        }
    }

    /** The QP is being flushed: refuse new operations. Dispatcher. */
    public synchronized void closing() {
        closing = true;
    }

    /** The QP is destroyed: fail what waits, deregister every region, return the result slots. Dispatcher. */
    public void release() {
        // Most connections never start a one-sided operation nor register a region: then nothing is
        // copied out (the copies were a visible part of a storm teardown's dispatcher time, s40-rec1).
        List<Op> failed = List.of();
        List<Region> open = List.of();
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            closing = true;
            if (!waiting.isEmpty() || posted != null) {
                failed = new ArrayList<>(waiting);
                waiting.clear();
                for (int i = 0; posted != null && i < posted.length; i++) {
                    if (posted[i] != null) {
                        failed.add(posted[i]);
                        posted[i] = null;
                    }
                }
            }
            if (!regions.isEmpty()) {
                open = List.copyOf(regions);
                regions.clear();
            }
            if (send != null) {
                send.close();   // released: nothing posts any more
                send = null;
            }
        }
        for (Op op : failed) {
            op.future().completeExceptionally(new ConnectionClosedException(owner + " closed before the "
                    + op.opcode() + " completed", List.of()));
        }
        for (Region r : open) {
            r.inUse.set(0);
            r.close();   // not in `regions` any more: deregisters directly
        }
        SlotPool.Slot[] leased;
        synchronized (this) {
            leased = results;
            results = null;
        }
        if (leased != null) {
            pool.release(leased);
        }
    }
}
