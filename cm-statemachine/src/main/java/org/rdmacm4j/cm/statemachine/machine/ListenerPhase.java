package org.rdmacm4j.cm.statemachine.machine;

import org.rdmacm4j.cm.statemachine.Phase;

/** Phases of a listening id. Codes are stable. */
public enum ListenerPhase implements Phase {
    /** rdma_listen succeeded (the core binds and listens before it creates the machine). */
    LISTENING(0),
    /** The listening id was destroyed after ADDR_CHANGE/DEVICE_REMOVAL; re-listen when the timer fires. */
    RELISTEN_BACKOFF(1),
    CLOSED(2);

    static {
        Phase.checkCodes(ListenerPhase.class);
    }

    private final int code;

    ListenerPhase(int code) {
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
}
