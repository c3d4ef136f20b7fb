package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Layouts;

/**
 * Pre-laid-out {@code struct ibv_recv_wr} array with scatter/gather entries, reused for every
 * {@link QueuePair#postRecv} / {@link SharedReceiveQueue#postRecv}: allocation-free.
 * Threads: the one thread that posts.
 */
public final class RecvRequests implements AutoCloseable {
    private static final CStruct WR = Layouts.IBV_RECV_WR;
    private static final long STRIDE = WR.size();
    private static final long SGE_STRIDE = Layouts.IBV_SGE.size();
    private static final long WR_ID = WR.offset("wr_id");
    private static final long NEXT = WR.offset("next");
    private static final long SG_LIST = WR.offset("sg_list");
    private static final long NUM_SGE = WR.offset("num_sge");

    private final Arena arena;
    private final MemorySegment wrs;
    private final MemorySegment sges;
    final MemorySegment badWr;
    private final int capacity;
    private final int maxSge;

    private RecvRequests(int capacity, int maxSge) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.arena = Arena.ofShared();
        this.wrs = arena.allocate(STRIDE * capacity, WR.alignment());
        this.sges = arena.allocate(SGE_STRIDE * capacity * maxSge, Layouts.IBV_SGE.alignment());
        this.badWr = arena.allocate(JAVA_LONG);
        for (int i = 0; i < capacity; i++) {
            set(i, 0);
        }
    }

    public static RecvRequests allocate(int capacity, int maxSge) {
        if (capacity < 1 || capacity > 65536 || maxSge < 1 || maxSge > 64) {
            throw new IllegalArgumentException("capacity " + capacity + " (1..65536) or maxSge " + maxSge
                    + " (1..64) out of range");
        }
        return new RecvRequests(capacity, maxSge);
    }

    public int capacity() {
        return capacity;
    }

    MemorySegment segment() {
        return wrs;
    }

    private long at(int i) {
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("request " + i + " of " + capacity);
        }
        return i * STRIDE;
    }

    /** Clears request {@code i} and sets its id (num_sge 0 until {@link #sge}). */
    public RecvRequests set(int i, long wrId) {
        long off = at(i);
        wrs.set(JAVA_LONG, off + WR_ID, wrId);
        wrs.set(JAVA_LONG, off + NEXT, 0L);
        wrs.set(JAVA_LONG, off + SG_LIST, sges.address() + (long) i * maxSge * SGE_STRIDE);
        wrs.set(JAVA_INT, off + NUM_SGE, 0);
        return this;
    }

    /** Scatter/gather entry {@code j} of request {@code i}; num_sge becomes at least {@code j + 1}. */
    public RecvRequests sge(int i, int j, long address, int length, int lkey) {
        long off = at(i);
        if (j < 0 || j >= maxSge) {
            throw new IndexOutOfBoundsException("sge " + j + " of " + maxSge);
        }
        if (length < 0) {
            throw new IllegalArgumentException("length " + length + " is negative");
        }
        long s = ((long) i * maxSge + j) * SGE_STRIDE;
        sges.set(JAVA_LONG, s + Layouts.IBV_SGE.offset("addr"), address);
        sges.set(JAVA_INT, s + Layouts.IBV_SGE.offset("length"), length);
        sges.set(JAVA_INT, s + Layouts.IBV_SGE.offset("lkey"), lkey);
        if (wrs.get(JAVA_INT, off + NUM_SGE) < j + 1) {
            wrs.set(JAVA_INT, off + NUM_SGE, j + 1);
        }
        return this;
    }

    /** Scatter/gather entry over part of a registered region (bounds checked). */
    public RecvRequests sge(int i, int j, MemoryRegion mr, long offset, int length) {
        if (offset < 0 || length < 0 || offset + length > mr.length()) {
            throw new IndexOutOfBoundsException("[" + offset + ", " + (offset + length) + ") is outside " + mr);
        }
        mr.ensureOpen();
        return sge(i, j, mr.address() + offset, length, mr.lkey());
    }

    void link(int count) {
        if (count < 1 || count > capacity) {
            throw new IllegalArgumentException("count " + count + " is outside 1.." + capacity);
        }
        long base = wrs.address();
        for (int k = 0; k < count - 1; k++) {
            wrs.set(JAVA_LONG, k * STRIDE + NEXT, base + (k + 1) * STRIDE);
        }
        wrs.set(JAVA_LONG, (count - 1) * STRIDE + NEXT, 0L);
    }

    int badIndex() {
        long p = badWr.get(JAVA_LONG, 0);
        return p == 0 ? -1 : (int) ((p - wrs.address()) / STRIDE);
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
