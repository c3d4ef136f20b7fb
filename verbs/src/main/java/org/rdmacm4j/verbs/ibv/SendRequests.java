package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

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
    private static final long WR_ID = WR.offset("wr_id");
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

    private final WorkRequestArray array;
    private final MemorySegment wrs;
    final MemorySegment badWr;

    private SendRequests(int capacity, int maxSge) {
        this.array = new WorkRequestArray(WR, capacity, maxSge);
        this.wrs = array.wrs;
        this.badWr = array.badWr;
    }

    /** {@code capacity} requests of up to {@code maxSge} scatter/gather entries each. */
    public static SendRequests allocate(int capacity, int maxSge) {
        return new SendRequests(capacity, maxSge);
    }

    public int capacity() {
        return array.capacity;
    }

    public int maxSge() {
        return array.maxSge;
    }

    MemorySegment segment() {
        return wrs;
    }

    /** Clears request {@code i} (every field but its sg_list pointer). */
    public SendRequests reset(int i) {
        array.clear(i);
        return this;
    }

    /** Clears request {@code i}, then sets its id, opcode and {@link SendFlags}. */
    public SendRequests set(int i, long wrId, WrOpcode opcode, int sendFlags) {
        long off = array.clear(i);
        wrs.set(JAVA_LONG_UNALIGNED, off + WR_ID, wrId);
        wrs.set(JAVA_INT_UNALIGNED, off + OPCODE, opcode.value());
        wrs.set(JAVA_INT_UNALIGNED, off + SEND_FLAGS, sendFlags);
        return this;
    }

    /**
     * Scatter/gather entry {@code j} of request {@code i}; the request's num_sge becomes at
     * least {@code j + 1}.
     */
    public SendRequests sge(int i, int j, long address, int length, int lkey) {
        array.sge(i, j, address, length, lkey);
        return this;
    }

    /** Scatter/gather entry over {@code [offset, offset+length)} of a registered region (bounds checked). */
    public SendRequests sge(int i, int j, MemoryRegion mr, long offset, int length) {
        array.sge(i, j, mr, offset, length);
        return this;
    }

    /** Immediate data (host order here; sent in network order) for *_WITH_IMM. */
    public SendRequests immData(int i, int imm) {
        wrs.set(JAVA_INT_UNALIGNED, array.at(i) + IMM_DATA, Integer.reverseBytes(imm));
        return this;
    }

    /** Remote side of RDMA_WRITE(_WITH_IMM) and RDMA_READ. */
    public SendRequests rdma(int i, long remoteAddress, int rkey) {
        long off = array.at(i);
        wrs.set(JAVA_LONG_UNALIGNED, off + RDMA_REMOTE_ADDR, remoteAddress);
        wrs.set(JAVA_INT_UNALIGNED, off + RDMA_RKEY, rkey);
        return this;
    }

    /**
     * Remote side of ATOMIC_CMP_AND_SWP ({@code compareAdd} = compare, {@code swap}) and
     * ATOMIC_FETCH_AND_ADD ({@code compareAdd} = add). The remote address must be 8-byte aligned.
     */
    public SendRequests atomic(int i, long remoteAddress, int rkey, long compareAdd, long swap) {
        // Hand-written: the message's hex digits would be built on every atomic as a checkArgument argument.
        if ((remoteAddress & 7) != 0) {
            throw new IllegalArgumentException("atomic target 0x" + Long.toHexString(remoteAddress)
                    + " is not 8-byte aligned");
        }
        long off = array.at(i);
        wrs.set(JAVA_LONG_UNALIGNED, off + ATOMIC_REMOTE_ADDR, remoteAddress);
        wrs.set(JAVA_LONG_UNALIGNED, off + ATOMIC_COMPARE_ADD, compareAdd);
        wrs.set(JAVA_LONG_UNALIGNED, off + ATOMIC_SWAP, swap);
        wrs.set(JAVA_INT_UNALIGNED, off + ATOMIC_RKEY, rkey);
        return this;
    }

    /** Destination of a UD send. The address handle must stay open until the send completes. */
    public SendRequests ud(int i, AddressHandle ah, int remoteQpn, int remoteQkey) {
        long off = array.at(i);
        wrs.set(JAVA_LONG_UNALIGNED, off + UD_AH, ah.segment().address());
        wrs.set(JAVA_INT_UNALIGNED, off + UD_REMOTE_QPN, remoteQpn);
        wrs.set(JAVA_INT_UNALIGNED, off + UD_REMOTE_QKEY, remoteQkey);
        return this;
    }

    /** Chains requests 0..count-1 through their next pointers (the last one ends the list). */
    void link(int count) {
        array.link(count);
    }

    /** Index of the request bad_wr points at, or -1. */
    int badIndex() {
        return array.badIndex();
    }

    @Override
    public void close() {
        array.close();
    }
}
