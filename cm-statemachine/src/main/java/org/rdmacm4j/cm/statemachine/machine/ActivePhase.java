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
    /** QP destroyed, waiting for the CQ poller to ack its events (bounded). */
    RELEASING(9),
    /** Every native object destroyed. */
    CLOSED(10);

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
