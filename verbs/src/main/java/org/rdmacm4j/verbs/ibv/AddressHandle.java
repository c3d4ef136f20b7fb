package org.rdmacm4j.verbs.ibv;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Ownership;
import java.util.function.Supplier;

/** An address handle ({@code struct ibv_ah}) for UD sends. Threads: the owner's. */
public final class AddressHandle implements AutoCloseable {
    private final MemorySegment ah;
    private final Ownership ownership;

    AddressHandle(ProtectionDomain pd, MemorySegment ah) {
        this.ah = ah;
        long address = ah.address();   // the description holds values, never this wrapper
        this.ownership = new Ownership(new What(address), pd.ownership());
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

    /**
     * The description {@link Ownership} builds on first use: a record, not a lambda, so making one links
     * no call site at a process's first connection (a lambda's would be, since the build's AOT training
     * runs without a device and never reaches this constructor).
     */
    private record What(long address) implements Supplier<String> {
        @Override
        public String get() {
            return "AddressHandle(0x" + Long.toHexString(address) + ")";
        }
    }
}
