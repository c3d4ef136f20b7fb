package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;
import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.StructImage;

/**
 * {@code struct ibv_qp_init_attr}: what a new QP needs. Immutable; the CQs (and SRQ) must be
 * open when the QP is created and then cannot be closed before it.
 *
 * @param type RC, UC or UD
 * @param sendCq CQ for send completions
 * @param recvCq CQ for receive completions (may be the same)
 * @param srq shared receive queue, or null
 * @param maxSendWr send queue depth
 * @param maxRecvWr receive queue depth (ignored with an SRQ)
 * @param maxSendSge scatter/gather entries per send request
 * @param maxRecvSge scatter/gather entries per receive request
 * @param maxInlineData bytes a send may carry inline
 * @param signalAll every send generates a completion (sq_sig_all)
 */
public record QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, SharedReceiveQueue srq,
                               int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData,
                               boolean signalAll) {
    private static final CStruct T = Layouts.IBV_QP_INIT_ATTR;
    private static final long T_CAP_MAX_INLINE_DATA = T.offset("cap.max_inline_data");
    private static final long T_CAP_MAX_RECV_SGE = T.offset("cap.max_recv_sge");
    private static final long T_CAP_MAX_RECV_WR = T.offset("cap.max_recv_wr");
    private static final long T_CAP_MAX_SEND_SGE = T.offset("cap.max_send_sge");
    private static final long T_CAP_MAX_SEND_WR = T.offset("cap.max_send_wr");
    private static final long T_QP_TYPE = T.offset("qp_type");
    private static final long T_RECV_CQ = T.offset("recv_cq");
    private static final long T_SEND_CQ = T.offset("send_cq");
    private static final long T_SQ_SIG_ALL = T.offset("sq_sig_all");
    private static final long T_SRQ = T.offset("srq");
    private static final int T_SIZE = StructImage.size(T);

    public QpInitAttributes {
        checkArgument(type != null && sendCq != null && recvCq != null, "type, sendCq and recvCq must not be null");
        checkArgument(maxSendWr >= 0 && maxRecvWr >= 0 && maxSendSge >= 0 && maxRecvSge >= 0 && maxInlineData >= 0,
                "queue capacities must not be negative");
    }

    /** A QP without SRQ, with selective signalling (sq_sig_all = 0). */
    public static QpInitAttributes of(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr,
                                      int maxRecvWr, int maxSge, int maxInlineData) {
        return new QpInitAttributes(type, sendCq, recvCq, null, maxSendWr, maxRecvWr, maxSge, maxSge, maxInlineData,
                false);
    }

    public QpInitAttributes withSrq(SharedReceiveQueue s) {
        return new QpInitAttributes(type, sendCq, recvCq, s, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge,
                maxInlineData, signalAll);
    }

    public QpInitAttributes withSignalAll(boolean all) {
        return new QpInitAttributes(type, sendCq, recvCq, srq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge,
                maxInlineData, all);
    }

    /**
     * Writes the whole struct into {@code out} (see {@link #encode}) and returns the ownerships the
     * QP will depend on.
     */
    Ownership[] write(MemorySegment out) {
        encode(out, sendCq.segment().address(), recvCq.segment().address(),
                srq == null ? 0L : srq.segment().address(), maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData,
                type.value(), signalAll);
        int n = 1 + (recvCq != sendCq ? 1 : 0) + (srq != null ? 1 : 0);
        Ownership[] deps = new Ownership[n];
        int i = 0;
        deps[i++] = sendCq.ownership();
        if (recvCq != sendCq) {
            deps[i++] = recvCq.ownership();
        }
        if (srq != null) {
            deps[i] = srq.ownership();
        }
        return deps;
    }

    /**
     * The whole struct assembled in the thread's {@link StructImage} and copied out in one call (every
     * other byte zero, qp_context NULL). It was ten segment writes, each a VarHandle chain under C1:
     * 156 of the dispatcher's 6,176 Java samples in a warm CmBench run (issue 21), the largest such
     * site. Pointers are written as longs, never through ADDRESS: the JDK's pointer var handle is an
     * indirect one whose lambda forms no AOT cache keeps (~140 ms of a cached first connection in
     * c35-diag1, docs/benchmarks.md). Package-private and static for the test that pins it against
     * the field-by-field writes.
     */
    static void encode(MemorySegment out, long sendCq, long recvCq, long srq, int maxSendWr, int maxRecvWr,
                       int maxSendSge, int maxRecvSge, int maxInlineData, int qpType, boolean signalAll) {
        StructImage img = StructImage.mine().clear(T_SIZE);
        img.putU64(T_SEND_CQ, sendCq);
        img.putU64(T_RECV_CQ, recvCq);
        img.putU64(T_SRQ, srq);
        img.putI32(T_CAP_MAX_SEND_WR, maxSendWr);
        img.putI32(T_CAP_MAX_RECV_WR, maxRecvWr);
        img.putI32(T_CAP_MAX_SEND_SGE, maxSendSge);
        img.putI32(T_CAP_MAX_RECV_SGE, maxRecvSge);
        img.putI32(T_CAP_MAX_INLINE_DATA, maxInlineData);
        img.putI32(T_QP_TYPE, qpType);
        img.putI32(T_SQ_SIG_ALL, signalAll ? 1 : 0);
        img.store(out, 0, T_SIZE);
    }
}
