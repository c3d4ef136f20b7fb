package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Ownership;
import java.util.function.Supplier;

/**
 * A registered memory region ({@code struct ibv_mr}) over a native {@link MemorySegment}.
 * The keys are read once at registration. Any thread may read them; close on the owner's thread.
 */
public final class MemoryRegion implements AutoCloseable {
    private final MemorySegment buffer;
    private final MemorySegment mr;
    private final Ownership ownership;
    private final int lkey;
    private final int rkey;

    MemoryRegion(ProtectionDomain pd, MemorySegment buffer, MemorySegment mr) {
        this.buffer = buffer;
        this.mr = mr;
        int l = mr.get(JAVA_INT_UNALIGNED, Layouts.IBV_MR.offset("lkey"));
        this.lkey = l;
        this.rkey = mr.get(JAVA_INT_UNALIGNED, Layouts.IBV_MR.offset("rkey"));
        long address = buffer.address();   // the description holds values, never this wrapper
        long size = buffer.byteSize();
        this.ownership = new Ownership(new What(address, size, l), pd.ownership());
        ownership.watch(this);
    }

    /** The local key, for scatter/gather entries. */
    public int lkey() {
        return lkey;
    }

    /** The remote key, for a peer's RDMA WRITE/READ/atomics. */
    public int rkey() {
        return rkey;
    }

    /** Start address of the registered memory. */
    public long address() {
        return buffer.address();
    }

    /** Length in bytes. */
    public long length() {
        return buffer.byteSize();
    }

    /** The registered memory. */
    public MemorySegment segment() {
        ownership.ensureOpen();
        return buffer;
    }

    void ensureOpen() {
        ownership.ensureOpen();
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /** {@code ibv_dereg_mr}. Idempotent. */
    @Override
    public void close() {
        ownership.close(() -> IbvLib.deregMr(mr.address()));
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
    private record What(long address, long size, int lkey) implements Supplier<String> {
        @Override
        public String get() {
            return "MemoryRegion(0x" + Long.toHexString(address) + ", " + size + " bytes, lkey 0x"
                    + Integer.toHexString(lkey) + ")";
        }
    }
}
