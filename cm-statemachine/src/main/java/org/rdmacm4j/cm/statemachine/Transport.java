package org.rdmacm4j.cm.statemachine;

/**
 * The transport under an id. It changes which events can arrive and what their status means: the
 * IB CM (InfiniBand, RoCE) sends TIMEWAIT_EXIT after a disconnect and reports rejects with IB CM
 * reason codes; iWARP ({@code cma_iw_handler}) never sends TIMEWAIT_EXIT and reports every refused
 * connection as {@code -ECONNREFUSED}.
 */
public enum Transport {
    INFINIBAND(true),
    ROCE(true),
    IWARP(false);

    private final boolean timewait;

    Transport(boolean timewait) {
        this.timewait = timewait;
    }

    /** Whether this transport delivers RDMA_CM_EVENT_TIMEWAIT_EXIT at all. */
    public boolean hasTimewaitExit() {
        return timewait;
    }
}
