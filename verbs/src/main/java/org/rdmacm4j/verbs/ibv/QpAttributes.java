package org.rdmacm4j.verbs.ibv;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Decode;
import org.rdmacm4j.verbs.internal.Layouts;

/**
 * {@code struct ibv_qp_attr} plus its mask: each setter records its {@link QpAttrMask} bit, so
 * {@link QueuePair#modify} passes exactly the fields that were set. Also what
 * {@link QueuePair#query} returns. Mutable; one thread.
 */
public final class QpAttributes {
    private static final CStruct T = Layouts.IBV_QP_ATTR;
    private static final long T_AH_ATTR = T.offset("ah_attr");
    private static final long T_CAP_MAX_INLINE_DATA = T.offset("cap.max_inline_data");
    private static final long T_CAP_MAX_RECV_SGE = T.offset("cap.max_recv_sge");
    private static final long T_CAP_MAX_RECV_WR = T.offset("cap.max_recv_wr");
    private static final long T_CAP_MAX_SEND_SGE = T.offset("cap.max_send_sge");
    private static final long T_CAP_MAX_SEND_WR = T.offset("cap.max_send_wr");
    private static final long T_CUR_QP_STATE = T.offset("cur_qp_state");
    private static final long T_DEST_QP_NUM = T.offset("dest_qp_num");
    private static final long T_MAX_DEST_RD_ATOMIC = T.offset("max_dest_rd_atomic");
    private static final long T_MAX_RD_ATOMIC = T.offset("max_rd_atomic");
    private static final long T_MIN_RNR_TIMER = T.offset("min_rnr_timer");
    private static final long T_PATH_MTU = T.offset("path_mtu");
    private static final long T_PKEY_INDEX = T.offset("pkey_index");
    private static final long T_PORT_NUM = T.offset("port_num");
    private static final long T_QKEY = T.offset("qkey");
    private static final long T_QP_ACCESS_FLAGS = T.offset("qp_access_flags");
    private static final long T_QP_STATE = T.offset("qp_state");
    private static final long T_RETRY_CNT = T.offset("retry_cnt");
    private static final long T_RNR_RETRY = T.offset("rnr_retry");
    private static final long T_RQ_PSN = T.offset("rq_psn");
    private static final long T_SQ_PSN = T.offset("sq_psn");
    private static final long T_TIMEOUT = T.offset("timeout");

    private int mask;
    private QpState state = QpState.RESET;
    private QpState currentState = QpState.RESET;
    private Mtu pathMtu = Mtu.MTU_1024;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int accessFlags;
    private AhAttributes ahAttr;
    private int pkeyIndex;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int port;
    private int timeout;
    private int retryCount;
    private int rnrRetry;
    private int maxSendWr;
    private int maxRecvWr;
    private int maxSendSge;
    private int maxRecvSge;
    private int maxInlineData;

    /** Empty: state RESET, nothing in the mask. */
    public QpAttributes() {
        // every field has its C zero value; setters fill the mask
    }

    public int mask() { return mask; }

    public QpState state() { return state; }

    public QpAttributes state(QpState s) { state = s; mask |= QpAttrMask.STATE; return this; }

    public QpState currentState() { return currentState; }

    public Mtu pathMtu() { return pathMtu; }

    public QpAttributes pathMtu(Mtu m) { pathMtu = m; mask |= QpAttrMask.PATH_MTU; return this; }

    public int qkey() { return qkey; }

    public QpAttributes qkey(int v) { qkey = v; mask |= QpAttrMask.QKEY; return this; }

    public int rqPsn() { return rqPsn; }

    public QpAttributes rqPsn(int v) { rqPsn = check24("rqPsn", v); mask |= QpAttrMask.RQ_PSN; return this; }

    public int sqPsn() { return sqPsn; }

    public QpAttributes sqPsn(int v) { sqPsn = check24("sqPsn", v); mask |= QpAttrMask.SQ_PSN; return this; }

    public int destQpNum() { return destQpNum; }

    public QpAttributes destQpNum(int v) { destQpNum = check24("destQpNum", v); mask |= QpAttrMask.DEST_QPN; return this; }

    public int accessFlags() { return accessFlags; }

    public QpAttributes accessFlags(int v) { accessFlags = v; mask |= QpAttrMask.ACCESS_FLAGS; return this; }

    public AhAttributes ahAttr() { return ahAttr; }

    public QpAttributes ahAttr(AhAttributes v) { ahAttr = v; mask |= QpAttrMask.AV; return this; }

    public int pkeyIndex() { return pkeyIndex; }

    public QpAttributes pkeyIndex(int v) { pkeyIndex = check("pkeyIndex", v, 0xFFFF); mask |= QpAttrMask.PKEY_INDEX; return this; }

    public int maxRdAtomic() { return maxRdAtomic; }

    public QpAttributes maxRdAtomic(int v) { maxRdAtomic = check("maxRdAtomic", v, 255); mask |= QpAttrMask.MAX_QP_RD_ATOMIC; return this; }

    public int maxDestRdAtomic() { return maxDestRdAtomic; }

    public QpAttributes maxDestRdAtomic(int v) { maxDestRdAtomic = check("maxDestRdAtomic", v, 255); mask |= QpAttrMask.MAX_DEST_RD_ATOMIC; return this; }

    public int minRnrTimer() { return minRnrTimer; }

    public QpAttributes minRnrTimer(int v) { minRnrTimer = check("minRnrTimer", v, 31); mask |= QpAttrMask.MIN_RNR_TIMER; return this; }

    public int port() { return port; }

    public QpAttributes port(int v) { port = check("port", v, 255); mask |= QpAttrMask.PORT; return this; }

    public int timeout() { return timeout; }

    public QpAttributes timeout(int v) { timeout = check("timeout", v, 31); mask |= QpAttrMask.TIMEOUT; return this; }

    public int retryCount() { return retryCount; }

    public QpAttributes retryCount(int v) { retryCount = check("retryCount", v, 7); mask |= QpAttrMask.RETRY_CNT; return this; }

    public int rnrRetry() { return rnrRetry; }

    public QpAttributes rnrRetry(int v) { rnrRetry = check("rnrRetry", v, 7); mask |= QpAttrMask.RNR_RETRY; return this; }

    public int maxSendWr() { return maxSendWr; }

    public int maxRecvWr() { return maxRecvWr; }

    public int maxSendSge() { return maxSendSge; }

    public int maxRecvSge() { return maxRecvSge; }

    public int maxInlineData() { return maxInlineData; }

    private static int check(String name, int v, int max) {
        // Hand-written, not checkArgument: the int arguments would be boxed on the happy path, and
        // this runs for each field of every QP modification (per connection on a raw QP) (C1-only launchers do no escape analysis).
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " " + v + " is out of range 0.." + max);
        }
        return v;
    }

    private static int check24(String name, int v) {
        return check(name, v, 0xFFFFFF);
    }

    /** Writes every field into a zeroed struct ibv_qp_attr (the mask says which ones count). */
    void write(MemorySegment a) {
        a.fill((byte) 0);
        a.set(JAVA_INT_UNALIGNED, T_QP_STATE, state.value());
        a.set(JAVA_INT_UNALIGNED, T_CUR_QP_STATE, currentState.value());
        a.set(JAVA_INT_UNALIGNED, T_PATH_MTU, pathMtu.value());
        a.set(JAVA_INT_UNALIGNED, T_QKEY, qkey);
        a.set(JAVA_INT_UNALIGNED, T_RQ_PSN, rqPsn);
        a.set(JAVA_INT_UNALIGNED, T_SQ_PSN, sqPsn);
        a.set(JAVA_INT_UNALIGNED, T_DEST_QP_NUM, destQpNum);
        a.set(JAVA_INT_UNALIGNED, T_QP_ACCESS_FLAGS, accessFlags);
        if (ahAttr != null) {
            Decode.ahAttr(ahAttr, a.asSlice(T_AH_ATTR, Layouts.IBV_AH_ATTR.size()));
        }
        a.set(JAVA_SHORT_UNALIGNED, T_PKEY_INDEX, (short) pkeyIndex);
        a.set(JAVA_BYTE, T_MAX_RD_ATOMIC, (byte) maxRdAtomic);
        a.set(JAVA_BYTE, T_MAX_DEST_RD_ATOMIC, (byte) maxDestRdAtomic);
        a.set(JAVA_BYTE, T_MIN_RNR_TIMER, (byte) minRnrTimer);
        a.set(JAVA_BYTE, T_PORT_NUM, (byte) port);
        a.set(JAVA_BYTE, T_TIMEOUT, (byte) timeout);
        a.set(JAVA_BYTE, T_RETRY_CNT, (byte) retryCount);
        a.set(JAVA_BYTE, T_RNR_RETRY, (byte) rnrRetry);
    }

    /** Reads a struct ibv_qp_attr filled by ibv_query_qp or rdma_init_qp_attr. */
    static QpAttributes read(MemorySegment a, int mask) {
        QpAttributes q = new QpAttributes();
        q.mask = mask;
        q.state = QpState.of(a.get(JAVA_INT_UNALIGNED, T_QP_STATE));
        q.currentState = QpState.of(a.get(JAVA_INT_UNALIGNED, T_CUR_QP_STATE));
        int mtu = a.get(JAVA_INT_UNALIGNED, T_PATH_MTU);
        q.pathMtu = mtu == 0 ? Mtu.MTU_256 : Mtu.of(mtu);
        q.qkey = a.get(JAVA_INT_UNALIGNED, T_QKEY);
        q.rqPsn = a.get(JAVA_INT_UNALIGNED, T_RQ_PSN);
        q.sqPsn = a.get(JAVA_INT_UNALIGNED, T_SQ_PSN);
        q.destQpNum = a.get(JAVA_INT_UNALIGNED, T_DEST_QP_NUM);
        q.accessFlags = a.get(JAVA_INT_UNALIGNED, T_QP_ACCESS_FLAGS);
        q.ahAttr = Decode.ahAttr(a.asSlice(T_AH_ATTR, Layouts.IBV_AH_ATTR.size()));
        q.pkeyIndex = Decode.u16(a, T_PKEY_INDEX);
        q.maxRdAtomic = Decode.u8(a, T_MAX_RD_ATOMIC);
        q.maxDestRdAtomic = Decode.u8(a, T_MAX_DEST_RD_ATOMIC);
        q.minRnrTimer = Decode.u8(a, T_MIN_RNR_TIMER);
        q.port = Decode.u8(a, T_PORT_NUM);
        q.timeout = Decode.u8(a, T_TIMEOUT);
        q.retryCount = Decode.u8(a, T_RETRY_CNT);
        q.rnrRetry = Decode.u8(a, T_RNR_RETRY);
        q.maxSendWr = a.get(JAVA_INT_UNALIGNED, T_CAP_MAX_SEND_WR);
        q.maxRecvWr = a.get(JAVA_INT_UNALIGNED, T_CAP_MAX_RECV_WR);
        q.maxSendSge = a.get(JAVA_INT_UNALIGNED, T_CAP_MAX_SEND_SGE);
        q.maxRecvSge = a.get(JAVA_INT_UNALIGNED, T_CAP_MAX_RECV_SGE);
        q.maxInlineData = a.get(JAVA_INT_UNALIGNED, T_CAP_MAX_INLINE_DATA);
        return q;
    }

    @Override
    public String toString() {
        return "QpAttributes[state=" + state + ", mask=0x" + Integer.toHexString(mask) + ", destQpNum=" + destQpNum
                + ", port=" + port + ", pathMtu=" + pathMtu + "]";
    }
}
