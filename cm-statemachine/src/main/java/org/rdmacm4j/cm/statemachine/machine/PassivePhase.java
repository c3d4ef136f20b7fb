package org.rdmacm4j.cm.statemachine.machine;

import org.rdmacm4j.cm.statemachine.Phase;

/** Phases of a passive (server-side) RC id, created by a listener's CONNECT_REQUEST. Codes are stable. */
public enum PassivePhase implements Phase {
    /** The request is with the application; accept or reject it before the decision deadline. */
    REQUEST_RECEIVED(0),
    /** QP created, rdma_accept issued (REP sent), waiting for ESTABLISHED (RTU) (bounded). */
    ACCEPTING(1),
    ESTABLISHED(2),
    DISCONNECTING(3),
    TIMEWAIT(4),
    DRAINING(5),
    RELEASING(6),
    CLOSED(7);

    static {
        Phase.checkCodes(PassivePhase.class);
    }

    private final int code;

    PassivePhase(int code) {
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

    static PassivePhase of(Teardown.Stage stage) {
        return switch (stage) {
            case DISCONNECTING -> DISCONNECTING;
            case TIMEWAIT -> TIMEWAIT;
            case DRAINING -> DRAINING;
            case RELEASING -> RELEASING;
            case CLOSED -> CLOSED;
        };
    }
}
