package org.rdmacm4j.cm.statemachine;

/** The timers a machine arms. At most one timer of each kind is armed per id. */
public enum TimerKind {
    /** Whole-connect deadline (resolve + retries + connect), armed once by Connect. */
    CONNECT_DEADLINE,
    /** Wait before the next connect attempt. */
    RETRY_BACKOFF,
    /** Passive: how long the application may sit on a connection request before it is rejected. */
    DECISION_DEADLINE,
    /** Passive: from rdma_accept to ESTABLISHED. */
    ACCEPT_DEADLINE,
    /** From rdma_disconnect to DISCONNECTED. */
    DISCONNECT_DEADLINE,
    /** IB/RoCE only, and only if the policy waits for TIMEWAIT_EXIT. */
    TIMEWAIT_DEADLINE,
    /** From DrainQp to Quiesced(QP). */
    DRAIN_DEADLINE,
    /** From QuiesceCq to Quiesced(CQ). */
    QUIESCE_DEADLINE,
    /** Listener: wait before re-creating the listening id. */
    RELISTEN_BACKOFF,
    /**
     * iWARP: the connect was abandoned (close, abort, cancel, connect deadline) while rdma_connect
     * awaits its MPA reply; iw_cm_disconnect and rdma_destroy_id would block until then, so the
     * teardown waits (bounded by {@link Deadlines#connect()}) for the result event. Past it the id
     * is leaked ({@link Action.LeakId}).
     */
    CONNECT_RESULT_DEADLINE
}
