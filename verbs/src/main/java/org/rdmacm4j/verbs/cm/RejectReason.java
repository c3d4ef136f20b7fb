package org.rdmacm4j.verbs.cm;

/**
 * Text for the status of a REJECTED event on IB/RoCE: the IB CM reject reason
 * ({@code enum ib_cm_rej_reason} in the kernel, IBA 12.6.7.2). librdmacm 44 exports no
 * {@code rdma_reject_msg} (that one is kernel-only), so the table lives here, with the
 * kernel's wording. Any thread.
 */
public final class RejectReason {
    private RejectReason() { }

    private static final String[] TEXT = {
        null, "no QP", "no EEC", "no resources", "timeout", "unsupported", "invalid comm ID",
        "invalid comm instance", "invalid service ID", "invalid transport type", "stale connection",
        "RDC not exist", "invalid GID", "invalid LID", "invalid SL", "invalid traffic class",
        "invalid hop limit", "invalid packet rate", "invalid alt GID", "invalid alt LID", "invalid alt SL",
        "invalid alt traffic class", "invalid alt hop limit", "invalid alt packet rate", "port CM redirect",
        "port redirect", "invalid MTU", "insufficient resp resources", "consumer defined",
        "invalid RNR retry", "duplicate local comm ID", "invalid class version", "invalid flow label",
        "invalid alt flow label", null, "vendor option is not supported",
    };

    /** IB_CM_REJ_CONSUMER_DEFINED: the peer called rdma_reject. */
    public static final int CONSUMER_DEFINED = 28;
    /** IB_CM_REJ_INVALID_SERVICE_ID: nobody listens on that port. */
    public static final int INVALID_SERVICE_ID = 8;

    /** The reason text for a REJECTED event's status ("unrecognized reason" if unknown). */
    public static String message(int status) {
        if (status > 0 && status < TEXT.length && TEXT[status] != null) {
            return TEXT[status];
        }
        return "unrecognized reason " + status;
    }
}
