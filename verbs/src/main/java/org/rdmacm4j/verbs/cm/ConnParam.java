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

    /** The private data of the records that carry none: an empty array is immutable, so one is shared. */
    private static final byte[] NO_DATA = new byte[0];

    /**
     * Made for every conn_param event the CM dispatcher decodes and for every connect and accept, so
     * its checks are written for C1 (issue 21): the six counts are tested in one expression, and only
     * a failure looks for the culprit ({@link #requireU8}); Guava's checkArgument with an int argument
     * is too big for C1 to inline (its failure path boxes), so it was six calls per record. Empty
     * private data is not copied (see {@link #NO_DATA}).
     */
    public ConnParam {
        checkArgument(privateData != null, "privateData must not be null (use an empty array)");
        privateData = copyOf(privateData);
        if (privateData.length > 255) {
            throw new IllegalArgumentException("private data of " + privateData.length + " bytes: at most 255");
        }
        if (((responderResources | initiatorDepth | flowControl | retryCount | rnrRetryCount | srq) & ~0xFF) != 0) {
            requireU8("responderResources", responderResources);
            requireU8("initiatorDepth", initiatorDepth);
            requireU8("flowControl", flowControl);
            requireU8("retryCount", retryCount);
            requireU8("rnrRetryCount", rnrRetryCount);
            requireU8("srq", srq);
        }
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
        return copyOf(privateData);
    }

    /** How many bytes of private data, without the copy {@link #privateData()} makes. */
    int privateDataLength() {
        return privateData.length;
    }

    /**
     * The record's own array, not a copy: for this package's writers (CmId, for rdma_connect and
     * rdma_accept), which only read it, and only within the call. Never handed out.
     */
    byte[] privateDataUncopied() {
        return privateData;
    }

    private static byte[] copyOf(byte[] b) {
        return b.length == 0 ? NO_DATA : b.clone();
    }

    private static void requireU8(String name, int v) {
        if (v < 0 || v > 255) {
            throw new IllegalArgumentException(name + " " + v + " is not an unsigned byte");
        }
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
