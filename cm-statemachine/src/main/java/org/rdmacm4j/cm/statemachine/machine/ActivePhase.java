package org.rdmacm4j.cm.statemachine.machine;

import org.rdmacm4j.cm.statemachine.Phase;

/** Phases of an active (client) RC id. Codes are stable: never renumber, only append. */
public enum ActivePhase implements Phase {
    /** Created, nothing started. */
    IDLE(0),
    /** rdma_resolve_addr issued. */
    RESOLVING_ADDR(1),
    /** QP created, rdma_resolve_route issued. */
    RESOLVING_ROUTE(2),
    /** rdma_connect issued (REQ sent). */
    CONNECTING(3),
    /** Waiting to retry after a retryable failure. */
    BACKOFF(4),
    /** ESTABLISHED seen; the connect future is complete. */
    ESTABLISHED(5),
    /** rdma_disconnect issued, waiting for DISCONNECTED (bounded). */
    DISCONNECTING(6),
    /** IB/RoCE, policy permitting: waiting for TIMEWAIT_EXIT (bounded). */
    TIMEWAIT(7),
    /** QP flushing, waiting for Quiesced(QP) (bounded). */
    DRAINING(8),
    /** Waiting for the CQ poller to stop and ack its events (bounded); then QP, CQ, channel, id are destroyed. */
    RELEASING(9),
    /** Every native object destroyed. */
    CLOSED(10),
    /** REJECTED with a retryable reason: the QP flushes (bounded) before the id is replaced. */
    RETRY_DRAINING(11),
    /** Retry: the CQ poller stops (bounded); then QP, CQ, channel and the rejected id are destroyed, and BACKOFF. */
    RETRY_RELEASING(12),
    /**
     * iWARP: the connect was given up (close, abort, cancel, deadline, QP error) while rdma_connect
     * awaits its MPA reply. iw_cm_disconnect and rdma_destroy_id would block until then, so the
     * teardown waits (bounded) for the result event; past the deadline the id is leaked.
     */
    CONNECT_ABANDONED(13);

    static {
        Phase.checkCodes(ActivePhase.class);
    }

    private final int code;

    ActivePhase(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    @Override
    public boolean terminal() {
        return this == CLOSED;
    }

    static ActivePhase of(Teardown.Stage stage) {
        return switch (stage) {
            case DISCONNECTING -> DISCONNECTING;
            case TIMEWAIT -> TIMEWAIT;
            case DRAINING -> DRAINING;
            case RELEASING -> RELEASING;
            case CLOSED -> CLOSED;
        };
    }
}
