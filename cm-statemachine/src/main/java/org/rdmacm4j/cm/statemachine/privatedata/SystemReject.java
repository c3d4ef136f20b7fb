package org.rdmacm4j.cm.statemachine.privatedata;

import java.util.Optional;

/**
 * Why the library itself (not the application) rejected a connection request. Sent in the reject's
 * private data behind its own header ({@link PrivateData#SYSTEM_REJECT_MAGIC}, see
 * {@link PrivateData}), so that an rdmacm4j peer can tell "busy, retry later" from an application's
 * reject, as nvmet tells its hosts with {@code NVME_RDMA_CM_NO_RSC}. Codes are wire values: never
 * renumber.
 */
public enum SystemReject {
    /**
     * Retryable: the listener is overloaded (more undecided requests than
     * {@code ListenerPolicy.maxPendingRequests}) or is re-listening after an address or device
     * change. The active side retries it like "no listener" ({@code RetryPolicy.onBusy}).
     */
    BUSY(1, true),
    /** The application did not decide before the decision deadline. */
    DECISION_TIMEOUT(2, false),
    /** The listener (or the whole RdmaCm) was closed before the application decided. */
    LISTENER_CLOSED(3, false),
    /** The passive side accepted, but could not create its QP or rdma_accept failed. */
    ACCEPT_FAILED(4, false);

    private final int code;
    private final boolean retryable;

    SystemReject(int code, boolean retryable) {
        this.code = code;
        this.retryable = retryable;
    }

    /** The byte sent on the wire after the header byte. */
    public int code() {
        return code;
    }

    /** Whether the peer should try again later. */
    public boolean retryable() {
        return retryable;
    }

    /** The reason for a wire code; empty for a code this version does not know. */
    public static Optional<SystemReject> find(int code) {
        for (SystemReject r : values()) {
            if (r.code == code) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
