package org.rdmacm4j.verbs.cm;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;

/**
 * {@code struct rdma_conn_param}: what rdma_connect/rdma_accept send, and what a connection
 * event carries. Immutable; the private data is copied in and out.
 *
 * <p>Limits (checked before any native call): private data at most 56 bytes for connect, 196
 * for accept (IB CM REQ/REP less the rdma_cm header, rdma_connect.3/rdma_accept.3); counts are
 * unsigned bytes; retry counts at most 7 (3-bit fields on the wire).
 *
 * @param privateData bytes for the peer (never null; empty for none)
 * @param responderResources outstanding RDMA reads/atomics the local side accepts as target
 * @param initiatorDepth outstanding RDMA reads/atomics the local side issues
 * @param flowControl whether hardware flow control is used (0 or 1)
 * @param retryCount transport retries (0..7; ignored on accept)
 * @param rnrRetryCount RNR NAK retries (0..7, 7 = infinite)
 * @param srq whether the remote side uses an SRQ (only without a QP on the id)
 * @param qpNum the QP number (only without a QP on the id)
 */
public record ConnParam(byte[] privateData, int responderResources, int initiatorDepth, int flowControl,
                        int retryCount, int rnrRetryCount, int srq, int qpNum) {

    /** Maximum private data in rdma_connect (IB CM REQ). */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Maximum private data in rdma_accept (IB CM REP). */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Maximum private data in rdma_reject (IB CM REJ). */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    public ConnParam {
        checkArgument(privateData != null, "privateData must not be null (use an empty array)");
        privateData = privateData.clone();
        checkArgument(privateData.length <= 255, "private data of %s bytes: at most 255", privateData.length);
        checkU8("responderResources", responderResources);
        checkU8("initiatorDepth", initiatorDepth);
        checkU8("flowControl", flowControl);
        checkU8("retryCount", retryCount);
        checkU8("rnrRetryCount", rnrRetryCount);
        checkU8("srq", srq);
    }

    /** Defaults like rping's: 1 read/atomic each way, 7 retries, infinite RNR retry, no data. */
    public static ConnParam defaults() {
        return new ConnParam(new byte[0], 1, 1, 0, 7, 7, 0, 0);
    }

    /** The same with other private data. */
    public ConnParam withPrivateData(byte[] data) {
        return new ConnParam(data, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount,
                srq, qpNum);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    private static void checkU8(String name, int v) {
        checkArgument(v >= 0 && v <= 255, "%s %s is not an unsigned byte", name, v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnParam c && Arrays.equals(privateData, c.privateData)
                && responderResources == c.responderResources && initiatorDepth == c.initiatorDepth
                && flowControl == c.flowControl && retryCount == c.retryCount
                && rnrRetryCount == c.rnrRetryCount && srq == c.srq && qpNum == c.qpNum;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(privateData) * 31 + Integer.hashCode(qpNum);
    }

    @Override
    public String toString() {
        return "ConnParam[privateData=" + privateData.length + " bytes, responderResources=" + responderResources
                + ", initiatorDepth=" + initiatorDepth + ", flowControl=" + flowControl + ", retryCount="
                + retryCount + ", rnrRetryCount=" + rnrRetryCount + ", srq=" + srq + ", qpNum=" + qpNum + "]";
    }
}
