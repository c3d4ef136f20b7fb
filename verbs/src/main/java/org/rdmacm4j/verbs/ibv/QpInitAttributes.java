package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Words;

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

    static {
        // encode writes the caps in pairs and the QP type with max_inline_data: one word each
        Words.check("ibv_qp_init_attr caps", T_CAP_MAX_SEND_WR, 4, T_CAP_MAX_SEND_WR, T_CAP_MAX_RECV_WR);
        Words.check("ibv_qp_init_attr caps", T_CAP_MAX_SEND_SGE, 4, T_CAP_MAX_SEND_SGE, T_CAP_MAX_RECV_SGE);
        Words.check("ibv_qp_init_attr", T_CAP_MAX_INLINE_DATA, 4, T_CAP_MAX_INLINE_DATA, T_QP_TYPE);
    }

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
     * Writes the struct into {@code out}, which must be zeroed (a {@code Scratch} slice, as both
     * callers pass: no second fill), and returns the ownerships the QP will depend on, followed by
     * {@code spare} empty slots for the caller's own (its PD, its rdma_cm id): the QP's parents array,
     * made once, not copied into a longer one (Arrays.copyOf of an Ownership[] is a reflective
     * Array.newInstance).
     */
    Ownership[] write(MemorySegment out, int spare) {
        encode(out, sendCq.segment().address(), recvCq.segment().address(),
                srq == null ? 0L : srq.segment().address(), maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData,
                type.value(), signalAll);
        int n = 1 + (recvCq != sendCq ? 1 : 0) + (srq != null ? 1 : 0);
        Ownership[] deps = new Ownership[n + spare];
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
     * The struct's fields into zeroed {@code out}: seven writes, not ten (the caps in pairs, the QP
     * type with max_inline_data, {@link Words}); under C1 each write is a VarHandle chain, and this
     * method's were 156 of the dispatcher's 6,176 Java samples in a warm CmBench run (issue 21).
     * Pointers are written as longs, not through ADDRESS: the JDK's pointer var handle is an indirect
     * one whose lambda forms no AOT cache keeps, so a process's first pointer write spun four of them
     * inside its first connection (~140 ms of a cached first connection in c35-diag1,
     * docs/benchmarks.md). Package-private and static for the test that pins it against the
     * field-by-field writes.
     */
    static void encode(MemorySegment out, long sendCq, long recvCq, long srq, int maxSendWr, int maxRecvWr,
                       int maxSendSge, int maxRecvSge, int maxInlineData, int qpType, boolean signalAll) {
        out.set(JAVA_LONG_UNALIGNED, T_SEND_CQ, sendCq);
        out.set(JAVA_LONG_UNALIGNED, T_RECV_CQ, recvCq);
        out.set(JAVA_LONG_UNALIGNED, T_SRQ, srq);
        out.set(JAVA_LONG_UNALIGNED, T_CAP_MAX_SEND_WR, Words.ints(maxSendWr, maxRecvWr));
        out.set(JAVA_LONG_UNALIGNED, T_CAP_MAX_SEND_SGE, Words.ints(maxSendSge, maxRecvSge));
        out.set(JAVA_LONG_UNALIGNED, T_CAP_MAX_INLINE_DATA, Words.ints(maxInlineData, qpType));
        out.set(JAVA_INT_UNALIGNED, T_SQ_SIG_ALL, signalAll ? 1 : 0);
    }
}
