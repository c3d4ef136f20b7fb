package org.rdmacm4j.verbs.ibv;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Ownership;

/** An address handle ({@code struct ibv_ah}) for UD sends. Threads: the owner's. */
public final class AddressHandle implements AutoCloseable {
    private final MemorySegment ah;
    private final Ownership ownership;

    AddressHandle(ProtectionDomain pd, MemorySegment ah) {
        this.ah = ah;
        long address = ah.address();   // locals only: the description must not reach this wrapper
        this.ownership = new Ownership(() -> "AddressHandle(0x" + Long.toHexString(address) + ")", pd.ownership());
        ownership.watch(this);
    }

    MemorySegment segment() {
        ownership.ensureOpen();
        return ah;
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /** {@code ibv_destroy_ah}. Idempotent. */
    @Override
    public void close() {
        ownership.close(() -> IbvLib.destroyAh(ah));
    }

    @Override
    public String toString() {
        return ownership.toString();
    }
}
