package org.rdmacm4j.cm.statemachine.machine;

import org.rdmacm4j.cm.statemachine.Phase;

/**
 * Phases of a UD (RDMA_PS_UDP) id: multicast and/or SIDR peer resolution. A UD id has no
 * connection, so there is no DISCONNECTING or TIMEWAIT. Codes are stable.
 */
public enum UdPhase implements Phase {
    IDLE(0),
    RESOLVING_ADDR(1),
    /** SIDR only. */
    RESOLVING_ROUTE(2),
    /** SIDR_REQ sent (rdma_connect on a UD id), waiting for ESTABLISHED with the peer's QPN/QKey. */
    SIDR_QUERY(3),
    BACKOFF(4),
    /** Server side of SIDR: the request is with the application. */
    REQUEST_RECEIVED(5),
    /** QP created; multicast joins and leaves happen here. */
    READY(6),
    DRAINING(7),
    RELEASING(8),
    CLOSED(9);

    static {
        Phase.checkCodes(UdPhase.class);
    }

    private final int code;

    UdPhase(int code) {
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

    static UdPhase of(Teardown.Stage stage) {
        return switch (stage) {
            // A UD id never sets connectSent, so the teardown never waits for a disconnect or timewait.
            case DISCONNECTING, TIMEWAIT, DRAINING -> DRAINING;
            case RELEASING -> RELEASING;
            case CLOSED -> CLOSED;
        };
    }
}
