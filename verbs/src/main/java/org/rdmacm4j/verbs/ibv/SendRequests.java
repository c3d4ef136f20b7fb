package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Layouts;

/**
 * Pre-laid-out {@code struct ibv_send_wr} array with its scatter/gather entries, reused for
 * every {@link QueuePair#postSend}: filling a request and posting it allocate nothing.
 *
 * <p>Request {@code i} owns sge slots {@code i*maxSge .. i*maxSge+maxSge-1}; its sg_list points
 * there from allocation on. {@link #reset} clears a request; the typed setters fill it.
 * Threads: the one thread that posts on the QP.
 */
public final class SendRequests implements AutoCloseable {
    private static final CStruct WR = Layouts.IBV_SEND_WR;
    static final long STRIDE = WR.size();
    private static final long SGE_STRIDE = Layouts.IBV_SGE.size();
    private static final long WR_ID = WR.offset("wr_id");
    static final long NEXT = WR.offset("next");
    private static final long SG_LIST = WR.offset("sg_list");
    private static final long NUM_SGE = WR.offset("num_sge");
    private static final long OPCODE = WR.offset("opcode");
    private static final long SEND_FLAGS = WR.offset("send_flags");
    private static final long IMM_DATA = WR.offset("imm_data");
    private static final long RDMA_REMOTE_ADDR = WR.offset("wr.rdma.remote_addr");
    private static final long RDMA_RKEY = WR.offset("wr.rdma.rkey");
    private static final long ATOMIC_REMOTE_ADDR = WR.offset("wr.atomic.remote_addr");
    private static final long ATOMIC_COMPARE_ADD = WR.offset("wr.atomic.compare_add");
    private static final long ATOMIC_SWAP = WR.offset("wr.atomic.swap");
    private static final long ATOMIC_RKEY = WR.offset("wr.atomic.rkey");
    private static final long UD_AH = WR.offset("wr.ud.ah");
    private static final long UD_REMOTE_QPN = WR.offset("wr.ud.remote_qpn");
    private static final long UD_REMOTE_QKEY = WR.offset("wr.ud.remote_qkey");
    private static final long SGE_ADDR = Layouts.IBV_SGE.offset("addr");
    private static final long SGE_LENGTH = Layouts.IBV_SGE.offset("length");
    private static final long SGE_LKEY = Layouts.IBV_SGE.offset("lkey");

    private final Arena arena;
    private final MemorySegment wrs;
    private final MemorySegment sges;
    final MemorySegment badWr;
    private final int capacity;
    private final int maxSge;

    private SendRequests(int capacity, int maxSge) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.arena = Arena.ofShared();
        this.wrs = arena.allocate(STRIDE * capacity, WR.alignment());
        this.sges = arena.allocate(SGE_STRIDE * capacity * maxSge, Layouts.IBV_SGE.alignment());
        this.badWr = arena.allocate(JAVA_LONG);
        for (int i = 0; i < capacity; i++) {
            reset(i);
        }
    }

    /** {@code capacity} requests of up to {@code maxSge} scatter/gather entries each. */
    public static SendRequests allocate(int capacity, int maxSge) {
        if (capacity < 1 || capacity > 65536 || maxSge < 1 || maxSge > 64) {
            throw new IllegalArgumentException("capacity " + capacity + " (1..65536) or maxSge " + maxSge
                    + " (1..64) out of range");
        }
        return new SendRequests(capacity, maxSge);
    }

    public int capacity() {
        return capacity;
    }

    public int maxSge() {
        return maxSge;
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

    /** Clears request {@code i} (every field but its sg_list pointer). */
    public SendRequests reset(int i) {
        long off = at(i);
        for (long b = 0; b < STRIDE; b += 8) {
            wrs.set(JAVA_LONG, off + b, 0L);
        }
        wrs.set(JAVA_LONG, off + SG_LIST, sges.address() + (long) i * maxSge * SGE_STRIDE);
        return this;
    }

    /** Clears request {@code i}, then sets its id, opcode and {@link SendFlags}. */
    public SendRequests set(int i, long wrId, WrOpcode opcode, int sendFlags) {
        reset(i);
        long off = at(i);
        wrs.set(JAVA_LONG, off + WR_ID, wrId);
        wrs.set(JAVA_INT, off + OPCODE, opcode.value());
        wrs.set(JAVA_INT, off + SEND_FLAGS, sendFlags);
        return this;
    }

    /**
     * Scatter/gather entry {@code j} of request {@code i}; the request's num_sge becomes at
     * least {@code j + 1}.
     */
    public SendRequests sge(int i, int j, long address, int length, int lkey) {
        long off = at(i);
        if (j < 0 || j >= maxSge) {
            throw new IndexOutOfBoundsException("sge " + j + " of " + maxSge);
        }
        if (length < 0) {
            throw new IllegalArgumentException("length " + length + " is negative");
        }
        long s = ((long) i * maxSge + j) * SGE_STRIDE;
        sges.set(JAVA_LONG, s + SGE_ADDR, address);
        sges.set(JAVA_INT, s + SGE_LENGTH, length);
        sges.set(JAVA_INT, s + SGE_LKEY, lkey);
        if (wrs.get(JAVA_INT, off + NUM_SGE) < j + 1) {
            wrs.set(JAVA_INT, off + NUM_SGE, j + 1);
        }
        return this;
    }

    /** Scatter/gather entry over {@code [offset, offset+length)} of a registered region (bounds checked). */
    public SendRequests sge(int i, int j, MemoryRegion mr, long offset, int length) {
        if (offset < 0 || length < 0 || offset + length > mr.length()) {
            throw new IndexOutOfBoundsException("[" + offset + ", " + (offset + length) + ") is outside " + mr);
        }
        mr.ensureOpen();
        return sge(i, j, mr.address() + offset, length, mr.lkey());
    }

    /** Immediate data (host order here; sent in network order) for *_WITH_IMM. */
    public SendRequests immData(int i, int imm) {
        wrs.set(JAVA_INT, at(i) + IMM_DATA, Integer.reverseBytes(imm));
        return this;
    }

    /** Remote side of RDMA_WRITE(_WITH_IMM) and RDMA_READ. */
    public SendRequests rdma(int i, long remoteAddress, int rkey) {
        long off = at(i);
        wrs.set(JAVA_LONG, off + RDMA_REMOTE_ADDR, remoteAddress);
        wrs.set(JAVA_INT, off + RDMA_RKEY, rkey);
        return this;
    }

    /**
     * Remote side of ATOMIC_CMP_AND_SWP ({@code compareAdd} = compare, {@code swap}) and
     * ATOMIC_FETCH_AND_ADD ({@code compareAdd} = add). The remote address must be 8-byte aligned.
     */
    public SendRequests atomic(int i, long remoteAddress, int rkey, long compareAdd, long swap) {
        if ((remoteAddress & 7) != 0) {
            throw new IllegalArgumentException("atomic target 0x" + Long.toHexString(remoteAddress)
                    + " is not 8-byte aligned");
        }
        long off = at(i);
        wrs.set(JAVA_LONG, off + ATOMIC_REMOTE_ADDR, remoteAddress);
        wrs.set(JAVA_LONG, off + ATOMIC_COMPARE_ADD, compareAdd);
        wrs.set(JAVA_LONG, off + ATOMIC_SWAP, swap);
        wrs.set(JAVA_INT, off + ATOMIC_RKEY, rkey);
        return this;
    }

    /** Destination of a UD send. The address handle must stay open until the send completes. */
    public SendRequests ud(int i, AddressHandle ah, int remoteQpn, int remoteQkey) {
        long off = at(i);
        wrs.set(JAVA_LONG, off + UD_AH, ah.segment().address());
        wrs.set(JAVA_INT, off + UD_REMOTE_QPN, remoteQpn);
        wrs.set(JAVA_INT, off + UD_REMOTE_QKEY, remoteQkey);
        return this;
    }

    /** Chains requests 0..count-1 through their next pointers (the last one ends the list). */
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

    /** Index of the request bad_wr points at, or -1. */
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
