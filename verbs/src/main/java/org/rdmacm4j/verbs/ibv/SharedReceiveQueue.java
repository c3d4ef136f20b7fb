package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Native;
import org.rdmacm4j.verbs.internal.OpsTable;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Registry;
import org.rdmacm4j.verbs.internal.Scratch;

/**
 * A shared receive queue ({@code struct ibv_srq}). {@link #postRecv} goes through the ops table
 * (post_srq_recv) and allocates nothing. QPs using it must be closed first.
 * Threads: one posting thread; close on the owner's.
 */
public final class SharedReceiveQueue implements AutoCloseable {
    private final MemorySegment srq;
    private final Ownership ownership;
    private final MemorySegment postFn;

    private static final long SRQ_CONTEXT = Layouts.IBV_SRQ.offset("context");

    SharedReceiveQueue(ProtectionDomain pd, MemorySegment srq, int maxSge) {
        this.srq = srq;
        this.postFn = OpsTable.op(srq.get(Layouts.IBV_CONTEXT.pointerField(), SRQ_CONTEXT), OpsTable.Op.POST_SRQ_RECV);
        this.ownership = new Ownership("SharedReceiveQueue(0x" + Long.toHexString(srq.address()) + ", max_sge "
                + maxSge + ")", pd.ownership());
        ownership.watch(this);
        Registry.put(srq.address(), this);
    }

    MemorySegment segment() {
        ownership.ensureOpen();
        return srq;
    }

    Ownership ownership() {
        return ownership;
    }

    /** {@code ibv_post_srq_recv} of requests 0..count-1. */
    public void postRecv(RecvRequests requests, int count) {
        MemorySegment self = segment();
        requests.link(count);
        int rc;
        try {
            rc = (int) OpsTable.POST_SRQ_RECV.invokeExact(postFn, self, requests.segment(), requests.badWr);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (rc != 0) {
            throw QueuePair.postFailure("ibv_post_srq_recv", rc, requests.badIndex(), count);
        }
    }

    /**
     * {@code ibv_modify_srq} with IBV_SRQ_LIMIT: arms the SRQ so that an
     * {@link AsyncEventType#SRQ_LIMIT_REACHED} event comes once fewer than {@code limit}
     * receives are left (the limit then disarms itself).
     */
    public void armLimit(int limit) {
        checkArgument(limit >= 1, "limit %s must be at least 1", limit);
        MemorySegment self = segment();
        try (Scratch arena = Scratch.open()) {
            org.rdmacm4j.verbs.internal.CStruct t = Layouts.IBV_SRQ_ATTR;
            MemorySegment a = arena.allocate(t.size(), t.alignment());
            a.fill((byte) 0);
            a.set(java.lang.foreign.ValueLayout.JAVA_INT, t.offset("srq_limit"), limit);
            IbvLib.modifySrq(self, a, IbvLib.IBV_SRQ_LIMIT);
        }
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /** {@code ibv_destroy_srq}. Idempotent. */
    @Override
    public void close() {
        ownership.close(() -> {
            IbvLib.destroySrq(srq);
            Registry.remove(srq.address());
        });
    }

    @Override
    public String toString() {
        return ownership.toString();
    }
}
