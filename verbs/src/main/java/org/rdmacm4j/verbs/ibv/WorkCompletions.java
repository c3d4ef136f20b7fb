package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Layouts;

/**
 * A reusable array of {@code struct ibv_wc} for {@link CompletionQueue#poll}: allocated once,
 * read through index getters that return primitives (or cached enum constants), so polling
 * allocates nothing.
 *
 * <p>Threads: the poller thread that owns it. Close frees the native array (idempotent).
 */
public final class WorkCompletions implements AutoCloseable {
    private static final CStruct WC = Layouts.IBV_WC;
    private static final long STRIDE = WC.size();
    private static final long WR_ID = WC.offset("wr_id");
    private static final long STATUS = WC.offset("status");
    private static final long OPCODE = WC.offset("opcode");
    private static final long VENDOR_ERR = WC.offset("vendor_err");
    private static final long BYTE_LEN = WC.offset("byte_len");
    private static final long IMM_DATA = WC.offset("imm_data");
    private static final long QP_NUM = WC.offset("qp_num");
    private static final long SRC_QP = WC.offset("src_qp");
    private static final long WC_FLAGS = WC.offset("wc_flags");
    private static final long PKEY_INDEX = WC.offset("pkey_index");
    private static final long SLID = WC.offset("slid");
    private static final long SL = WC.offset("sl");
    private static final long DLID_PATH_BITS = WC.offset("dlid_path_bits");

    private final Arena arena;
    private final MemorySegment array;
    private final int capacity;
    private int count;

    private WorkCompletions(int capacity) {
        this.arena = Arena.ofShared();
        this.capacity = capacity;
        this.array = arena.allocate(STRIDE * capacity, WC.alignment());
    }

    /** An array of {@code capacity} work completions. */
    public static WorkCompletions allocate(int capacity) {
        checkArgument(capacity >= 1 && capacity <= 1 << 20, "capacity %s is outside 1..1048576", capacity);
        return new WorkCompletions(capacity);
    }

    MemorySegment segment() {
        return array;
    }

    /** Completion {@code i} as its own struct ibv_wc (for ibv_create_ah_from_wc). */
    MemorySegment entry(int i) {
        return array.asSlice(at(i), STRIDE);
    }

    void filled(int n) {
        count = n;
    }

    public int capacity() {
        return capacity;
    }

    /** How many entries the last poll wrote. */
    public int count() {
        return count;
    }

    private long at(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("completion " + i + " of " + count);
        }
        return i * STRIDE;
    }

    public long wrId(int i) { return array.get(JAVA_LONG_UNALIGNED, at(i) + WR_ID); }

    public WcStatus status(int i) { return WcStatus.of(statusValue(i)); }

    public int statusValue(int i) { return array.get(JAVA_INT_UNALIGNED, at(i) + STATUS); }

    public WcOpcode opcode(int i) { return WcOpcode.of(array.get(JAVA_INT_UNALIGNED, at(i) + OPCODE)); }

    public int vendorError(int i) { return array.get(JAVA_INT_UNALIGNED, at(i) + VENDOR_ERR); }

    public int byteLength(int i) { return array.get(JAVA_INT_UNALIGNED, at(i) + BYTE_LEN); }

    /** Immediate data in host order (C: network order, valid with {@link WcFlags#WITH_IMM}). */
    public int immData(int i) { return Integer.reverseBytes(array.get(JAVA_INT_UNALIGNED, at(i) + IMM_DATA)); }

    /** The invalidated rkey (same union as imm_data, valid with {@link WcFlags#WITH_INV}). */
    public int invalidatedRkey(int i) { return array.get(JAVA_INT_UNALIGNED, at(i) + IMM_DATA); }

    public int qpNum(int i) { return array.get(JAVA_INT_UNALIGNED, at(i) + QP_NUM); }

    public int srcQp(int i) { return array.get(JAVA_INT_UNALIGNED, at(i) + SRC_QP); }

    public int flags(int i) { return array.get(JAVA_INT_UNALIGNED, at(i) + WC_FLAGS); }

    public int pkeyIndex(int i) { return Short.toUnsignedInt(array.get(JAVA_SHORT_UNALIGNED, at(i) + PKEY_INDEX)); }

    public int slid(int i) { return Short.toUnsignedInt(array.get(JAVA_SHORT_UNALIGNED, at(i) + SLID)); }

    public int sl(int i) { return Byte.toUnsignedInt(array.get(JAVA_BYTE, at(i) + SL)); }

    public int dlidPathBits(int i) { return Byte.toUnsignedInt(array.get(JAVA_BYTE, at(i) + DLID_PATH_BITS)); }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
