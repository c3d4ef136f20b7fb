package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Objects;

/**
 * Everything that tunes a connection machine (active, passive or UD), as data.
 *
 * @param awaitTimewaitExit on IB/RoCE, wait for TIMEWAIT_EXIT (bounded by the timewait deadline)
 *                          before flushing the QP; ignored on iWARP, which never sends it. Off by
 *                          default: the kernel keeps the QPN in timewait itself and most ULPs
 *                          (SPDK, UCX, nvme) destroy without waiting.
 * @param disconnectOnAddrChange what ADDR_CHANGE does to an established connection: true (default)
 *                          tears it down as nvme/iser do; false only tells the handler.
 * @param sidr              UD only: after address resolution, resolve the peer's QPN/QKey with SIDR
 *                          (rdma_connect on a UD id); false for a multicast-only UD id.
 * @param maxRejoins        UD only: re-joins of a joined group after MULTICAST_ERROR before giving up.
 */
public record ConnectionPolicy(Transport transport, Deadlines deadlines, RetryPolicy retry, CmTuning tuning,
                               boolean awaitTimewaitExit, boolean disconnectOnAddrChange, boolean sidr,
                               int maxRejoins) {
    public ConnectionPolicy {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(deadlines, "deadlines");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(tuning, "tuning");
        checkArgument(maxRejoins >= 0, "maxRejoins must be >= 0, was %s", maxRejoins);
    }

    public static ConnectionPolicy defaults(Transport transport) {
        return new ConnectionPolicy(transport, Deadlines.defaults(), RetryPolicy.defaults(), CmTuning.defaults(),
                false, true, false, 3);
    }

    public ConnectionPolicy withRetry(RetryPolicy newRetry) {
        return new ConnectionPolicy(transport, deadlines, newRetry, tuning, awaitTimewaitExit,
                disconnectOnAddrChange, sidr, maxRejoins);
    }

    public ConnectionPolicy withAwaitTimewaitExit(boolean await) {
        return new ConnectionPolicy(transport, deadlines, retry, tuning, await, disconnectOnAddrChange, sidr,
                maxRejoins);
    }

    public ConnectionPolicy withDisconnectOnAddrChange(boolean disconnect) {
        return new ConnectionPolicy(transport, deadlines, retry, tuning, awaitTimewaitExit, disconnect, sidr,
                maxRejoins);
    }

    public ConnectionPolicy withSidr(boolean useSidr) {
        return new ConnectionPolicy(transport, deadlines, retry, tuning, awaitTimewaitExit,
                disconnectOnAddrChange, useSidr, maxRejoins);
    }

    /** Whether the machine waits for TIMEWAIT_EXIT after DISCONNECTED. */
    public boolean waitsForTimewait() {
        return awaitTimewaitExit && transport.hasTimewaitExit();
    }
}
