package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

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
    private static final long WR_ID = WR.offset("wr_id");

    private final WorkRequestArray array;
    final MemorySegment badWr;

    private RecvRequests(int capacity, int maxSge) {
        this.array = new WorkRequestArray(WR, capacity, maxSge);
        this.badWr = array.badWr;
    }

    public static RecvRequests allocate(int capacity, int maxSge) {
        return new RecvRequests(capacity, maxSge);
    }

    public int capacity() {
        return array.capacity;
    }

    MemorySegment segment() {
        return array.wrs;
    }

    /** Clears request {@code i} and sets its id (num_sge 0 until {@link #sge}). */
    public RecvRequests set(int i, long wrId) {
        array.wrs.set(JAVA_LONG_UNALIGNED, array.clear(i) + WR_ID, wrId);
        return this;
    }

    /** Scatter/gather entry {@code j} of request {@code i}; num_sge becomes at least {@code j + 1}. */
    public RecvRequests sge(int i, int j, long address, int length, int lkey) {
        array.sge(i, j, address, length, lkey);
        return this;
    }

    /** Scatter/gather entry over part of a registered region (bounds checked). */
    public RecvRequests sge(int i, int j, MemoryRegion mr, long offset, int length) {
        array.sge(i, j, mr, offset, length);
        return this;
    }

    void link(int count) {
        array.link(count);
    }

    int badIndex() {
        return array.badIndex();
    }

    @Override
    public void close() {
        array.close();
    }
}
