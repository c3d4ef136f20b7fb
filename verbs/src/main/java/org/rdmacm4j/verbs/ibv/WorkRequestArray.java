package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Layouts;

/**
 * The native side shared by {@link SendRequests} and {@link RecvRequests}: an array of
 * {@code capacity} work requests of one C type, each with its own {@code maxSge} scatter/gather
 * slots (request {@code i} owns slots {@code i*maxSge .. i*maxSge+maxSge-1}), and the
 * {@code bad_wr} out-pointer. Both public classes compose one of these and add their own fields.
 *
 * <p>The offsets of {@code next}, {@code sg_list} and {@code num_sge} and the stride are final
 * fields read from the {@link CStruct} once; nothing here allocates after construction.
 * Threads: the one thread that posts.
 */
final class WorkRequestArray {
    private static final long SGE_STRIDE = Layouts.IBV_SGE.size();
    private static final long SGE_ADDR = Layouts.IBV_SGE.offset("addr");
    private static final long SGE_LENGTH = Layouts.IBV_SGE.offset("length");
    private static final long SGE_LKEY = Layouts.IBV_SGE.offset("lkey");

    private final Arena arena;
    /** The requests, {@code stride} bytes apart. */
    final MemorySegment wrs;
    private final MemorySegment sges;
    /** {@code struct ibv_*_wr **bad_wr}, written by the provider on a failed post. */
    final MemorySegment badWr;
    final int capacity;
    final int maxSge;
    private final long stride;
    /** One request's worth of zero bytes, the source of {@link #clear}. */
    private final MemorySegment zero;
    private final long next;
    private final long sgList;
    private final long numSge;

    /** Every request cleared, its sg_list pointing at its slots. */
    WorkRequestArray(CStruct wr, int capacity, int maxSge) {
        checkArgument(capacity >= 1 && capacity <= 65536 && maxSge >= 1 && maxSge <= 64,
                "capacity %s (1..65536) or maxSge %s (1..64) out of range", capacity, maxSge);
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.stride = wr.size();
        this.next = wr.offset("next");
        this.sgList = wr.offset("sg_list");
        this.numSge = wr.offset("num_sge");
        this.arena = Arena.ofShared();
        this.wrs = arena.allocate(stride * capacity, wr.alignment());
        this.sges = arena.allocate(SGE_STRIDE * capacity * maxSge, Layouts.IBV_SGE.alignment());
        this.badWr = arena.allocate(JAVA_LONG);
        this.zero = arena.allocate(stride);   // Arena.allocate zeroes
        for (int i = 0; i < capacity; i++) {
            clear(i);
        }
    }

    /** Byte offset of request {@code i} in {@link #wrs}. */
    long at(int i) {
        if (i < 0 || i >= capacity) {
            throw new IndexOutOfBoundsException("request " + i + " of " + capacity);
        }
        return i * stride;
    }

    /** Zeroes request {@code i} but for its sg_list pointer; returns its offset. */
    long clear(int i) {
        long off = at(i);
        // One bulk copy from a zeroed request, not stride / 8 checked stores: under C1 (the
        // launchers' flags) each VarHandle store keeps its bounds and alignment checks, and this
        // runs on every post (the message round-trip profile, docs/benchmarks.md).
        MemorySegment.copy(zero, 0, wrs, off, stride);
        wrs.set(JAVA_LONG_UNALIGNED, off + sgList, sges.address() + (long) i * maxSge * SGE_STRIDE);
        return off;
    }

    /** Scatter/gather entry {@code j} of request {@code i}; num_sge becomes at least {@code j + 1}. */
    void sge(int i, int j, long address, int length, int lkey) {
        long off = at(i);
        if (j < 0 || j >= maxSge) {
            throw new IndexOutOfBoundsException("sge " + j + " of " + maxSge);
        }
        checkArgument(length >= 0, "length %s is negative", length);
        long s = ((long) i * maxSge + j) * SGE_STRIDE;
        sges.set(JAVA_LONG_UNALIGNED, s + SGE_ADDR, address);
        sges.set(JAVA_INT_UNALIGNED, s + SGE_LENGTH, length);
        sges.set(JAVA_INT_UNALIGNED, s + SGE_LKEY, lkey);
        if (wrs.get(JAVA_INT_UNALIGNED, off + numSge) < j + 1) {
            wrs.set(JAVA_INT_UNALIGNED, off + numSge, j + 1);
        }
    }

    /** Scatter/gather entry over {@code [offset, offset+length)} of a registered region (bounds checked). */
    void sge(int i, int j, MemoryRegion mr, long offset, int length) {
        if (offset < 0 || length < 0 || offset + length > mr.length()) {
            throw new IndexOutOfBoundsException("[" + offset + ", " + (offset + length) + ") is outside " + mr);
        }
        mr.ensureOpen();
        sge(i, j, mr.address() + offset, length, mr.lkey());
    }

    /** Chains requests 0..count-1 through their next pointers (the last one ends the list). */
    void link(int count) {
        checkArgument(count >= 1 && count <= capacity, "count %s is outside 1..%s", count, capacity);
        long base = wrs.address();
        for (int k = 0; k < count - 1; k++) {
            wrs.set(JAVA_LONG_UNALIGNED, k * stride + next, base + (k + 1) * stride);
        }
        wrs.set(JAVA_LONG_UNALIGNED, (count - 1) * stride + next, 0L);
    }

    /** Index of the request bad_wr points at, or -1. */
    int badIndex() {
        long p = badWr.get(JAVA_LONG_UNALIGNED, 0);
        return p == 0 ? -1 : (int) ((p - wrs.address()) / stride);
    }

    /** Frees the native memory; idempotent. */
    void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
