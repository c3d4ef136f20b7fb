package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Decode;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Scratch;

/**
 * A protection domain ({@code struct ibv_pd}). MRs, QPs, AHs and SRQs are made in it and must
 * be closed before it. Threads: create/close on the owner's thread.
 */
public final class ProtectionDomain implements AutoCloseable {
    private final DeviceContext context;
    private final MemorySegment pd;
    private final Ownership ownership;

    ProtectionDomain(DeviceContext context, MemorySegment pd) {
        this.context = context;
        this.pd = pd;
        this.ownership = new Ownership("ProtectionDomain(" + context.deviceName() + ", handle "
                + pd.get(JAVA_INT_UNALIGNED, Layouts.IBV_PD.offset("handle")) + ")", context.ownership());
        ownership.watch(this);
    }

    MemorySegment segment() {
        ownership.ensureOpen();
        return pd;
    }

    Ownership ownership() {
        return ownership;
    }

    public DeviceContext context() {
        return context;
    }

    /**
     * {@code ibv_reg_mr} over {@code buffer}, which must be native (not a heap segment) and stay
     * alive while the region is registered: close the region before the buffer's arena.
     *
     * @param access {@link Access} bits
     */
    public MemoryRegion register(MemorySegment buffer, int access) {
        checkArgument(buffer != null && buffer.isNative(),
                "only a native MemorySegment can be registered, not %s", buffer);
        checkArgument(buffer.byteSize() != 0, "cannot register an empty segment");
        checkArgument(buffer.scope().isAlive(), "the segment's arena is closed");
        return new MemoryRegion(this, buffer, IbvLib.regMr(segment(), buffer, access));
    }

    /** {@code ibv_create_qp}. */
    public QueuePair createQp(QpInitAttributes attrs) {
        checkArgument(attrs != null, "attrs must not be null");
        MemorySegment self = segment();
        try (Scratch arena = Scratch.open()) {
            MemorySegment init = arena.allocate(Layouts.IBV_QP_INIT_ATTR.size(), Layouts.IBV_QP_INIT_ATTR.alignment());
            Ownership[] parents = attrs.write(init, 1);   // the PD in the spare slot
            MemorySegment qp = IbvLib.createQp(self, init);
            parents[parents.length - 1] = ownership;
            return new QueuePair(qp, context, attrs, null, parents);
        }
    }

    /** {@code ibv_create_ah} for UD sends. */
    public AddressHandle createAh(AhAttributes attrs) {
        checkArgument(attrs != null, "attrs must not be null");
        MemorySegment self = segment();
        try (Scratch arena = Scratch.open()) {
            CStruct t = Layouts.IBV_AH_ATTR;
            MemorySegment a = arena.allocate(t.size(), t.alignment());
            a.fill((byte) 0);
            Decode.ahAttr(attrs, a);
            return new AddressHandle(this, IbvLib.createAh(self, a));
        }
    }

    /**
     * {@code ibv_create_ah_from_wc}: an address handle back to the sender of a UD receive.
     *
     * @param completions the polled completions; {@code index} selects the receive
     * @param grh the first 40 bytes of the receive buffer (the GRH the provider wrote)
     * @param port the local port to send from
     */
    public AddressHandle createAhFrom(WorkCompletions completions, int index, MemorySegment grh, int port) {
        checkArgument(grh != null && grh.isNative() && grh.byteSize() >= Layouts.IBV_GRH.size(),
                "grh must be a native segment of at least %s bytes", Layouts.IBV_GRH.size());
        DeviceContext.checkPort(port);
        MemorySegment self = segment();
        return new AddressHandle(this, IbvLib.createAhFromWc(self, completions.entry(index), grh, port));
    }

    /** {@code ibv_create_srq}. */
    public SharedReceiveQueue createSrq(int maxWr, int maxSge, int srqLimit) {
        checkArgument(maxWr >= 1 && maxSge >= 1 && srqLimit >= 0,
                "maxWr %s and maxSge %s must be at least 1, srqLimit %s not negative", maxWr, maxSge, srqLimit);
        MemorySegment self = segment();
        try (Scratch arena = Scratch.open()) {
            CStruct t = Layouts.IBV_SRQ_INIT_ATTR;
            MemorySegment a = arena.allocate(t.size(), t.alignment());
            a.fill((byte) 0);
            a.set(JAVA_INT_UNALIGNED, t.offset("attr.max_wr"), maxWr);
            a.set(JAVA_INT_UNALIGNED, t.offset("attr.max_sge"), maxSge);
            a.set(JAVA_INT_UNALIGNED, t.offset("attr.srq_limit"), srqLimit);
            return new SharedReceiveQueue(this, IbvLib.createSrq(self, a), maxSge);
        }
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /** {@code ibv_dealloc_pd}. Everything made in it must be closed first. Idempotent. */
    @Override
    public void close() {
        ownership.close(() -> IbvLib.deallocPd(pd.address()));
    }

    @Override
    public String toString() {
        return ownership.toString();
    }
}
