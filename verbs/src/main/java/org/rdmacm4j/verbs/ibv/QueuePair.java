package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Native;
import org.rdmacm4j.verbs.internal.OpsTable;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Registry;
import org.rdmacm4j.verbs.internal.Scratch;
import java.util.function.Supplier;

/**
 * A queue pair ({@code struct ibv_qp}), made by {@link ProtectionDomain#createQp} (closed with
 * ibv_destroy_qp) or by rdma_create_qp on a {@code CmId} (closed with rdma_destroy_qp). It
 * depends on its PD, CQs, SRQ and id: none of them can be closed before it.
 *
 * <p>{@link #postSend} and {@link #postRecv} go through the context's ops table as the verbs.h
 * inlines do and allocate nothing. Threads: one posting thread per queue; modify/close on the
 * owner's thread.
 */
public final class QueuePair implements AutoCloseable {
    private static final long QP_TYPE = Layouts.IBV_QP.offset("qp_type");
    private static final long QP_NUM = Layouts.IBV_QP.offset("qp_num");
    private final MemorySegment qp;
    private final Ownership ownership;
    private final QpType type;
    private final int qpNum;
    private final MemorySegment postSendFn;
    private final MemorySegment postRecvFn;
    private final Runnable destroy;

    /** {@code context}: the PD's, which is {@code qp->context} (ibv_create_qp and rdma_create_qp make it so). */
    QueuePair(MemorySegment qp, DeviceContext context, QpInitAttributes attrs, Runnable destroy, Ownership... parents) {
        this.qp = Layouts.IBV_QP.view(qp);
        QpType t = QpType.of(this.qp.get(JAVA_INT_UNALIGNED, QP_TYPE));
        int num = this.qp.get(JAVA_INT_UNALIGNED, QP_NUM);
        this.type = t;
        this.qpNum = num;
        this.postSendFn = context.op(OpsTable.Op.POST_SEND);   // read once per context
        this.postRecvFn = context.op(OpsTable.Op.POST_RECV);
        this.destroy = destroy;
        // the description holds values, never this wrapper: the wrapper's cleaner holds the description
        this.ownership = new Ownership(new What(t, num), parents);
        ownership.watchSampled(this);
        Registry.put(this.qp.address(), this);
    }

    /** The QP number (24 bits), what the peer addresses. */
    public int qpNum() {
        return qpNum;
    }

    public QpType type() {
        return type;
    }

    /** The native address, for matching async events. */
    public long handle() {
        return qp.address();
    }

    private MemorySegment open() {
        ownership.ensureOpen();
        return qp;
    }

    /**
     * {@code ibv_post_send} of requests 0..count-1 (chained here). Allocation-free on success;
     * a failure names the request the provider rejected.
     */
    public void postSend(SendRequests requests, int count) {
        MemorySegment self = open();
        requests.link(count);
        int rc;
        try {
            rc = (int) OpsTable.POST_SEND.invokeExact(postSendFn, self, requests.segment(), requests.badWr);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (rc != 0) {
            throw postFailure("ibv_post_send", rc, requests.badIndex(), count);
        }
    }

    /** {@code ibv_post_recv} of requests 0..count-1. Allocation-free on success. */
    public void postRecv(RecvRequests requests, int count) {
        MemorySegment self = open();
        requests.link(count);
        int rc;
        try {
            rc = (int) OpsTable.POST_RECV.invokeExact(postRecvFn, self, requests.segment(), requests.badWr);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (rc != 0) {
            throw postFailure("ibv_post_recv", rc, requests.badIndex(), count);
        }
    }

    static RdmaException postFailure(String function, int rc, int bad, int count) {
        return Native.failure(function + " (work request " + bad + " of " + count + ")", Math.abs(rc));
    }

    /** {@code ibv_modify_qp} with the fields set on {@code attrs} (its mask). */
    public void modify(QpAttributes attrs) {
        checkArgument(attrs != null && attrs.mask() != 0, "attrs must set at least one field");
        MemorySegment self = open();
        try (Scratch arena = Scratch.open()) {
            MemorySegment a = arena.allocate(Layouts.IBV_QP_ATTR.size(), Layouts.IBV_QP_ATTR.alignment());
            attrs.write(a);
            IbvLib.modifyQp(self.address(), a.address(), attrs.mask());
        }
    }

    /** {@code ibv_query_qp} for the {@link QpAttrMask} bits in {@code mask}. */
    public QpAttributes query(int mask) {
        MemorySegment self = open();
        try (Scratch arena = Scratch.open()) {
            MemorySegment a = arena.allocate(Layouts.IBV_QP_ATTR.size(), Layouts.IBV_QP_ATTR.alignment());
            MemorySegment init = arena.allocate(Layouts.IBV_QP_INIT_ATTR.size(),
                    Layouts.IBV_QP_INIT_ATTR.alignment());
            a.fill((byte) 0);
            IbvLib.queryQp(self, a, mask, init);
            return QpAttributes.read(a, mask);
        }
    }

    /** The current state ({@code ibv_query_qp} with IBV_QP_STATE). */
    public QpState state() {
        return query(QpAttrMask.STATE).state();
    }

    Ownership ownership() {
        return ownership;
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /** ibv_destroy_qp, or rdma_destroy_qp for a QP made on a CmId. Idempotent. */
    @Override
    public void close() {
        ownership.close(new Destroy(qp, destroy));
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
    private record What(QpType type, int qpNum) implements Supplier<String> {
        @Override
        public String get() {
            return "QueuePair(" + type + ", qp_num " + qpNum + ")";
        }
    }

    /**
     * ibv_destroy_qp, or the CmId's rdma_destroy_qp ({@code cmDestroy}), then the registry forgets the
     * QP. A record for the reason {@link What} is one: a lambda would link a call site at the first close.
     */
    private record Destroy(MemorySegment qp, Runnable cmDestroy) implements Runnable {
        @Override
        public void run() {
            if (cmDestroy == null) {
                IbvLib.destroyQp(qp);
            } else {
                cmDestroy.run();
            }
            Registry.remove(qp.address());
        }
    }
}
