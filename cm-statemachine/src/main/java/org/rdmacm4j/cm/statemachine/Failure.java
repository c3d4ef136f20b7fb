package org.rdmacm4j.cm.statemachine;

import java.util.Objects;

/**
 * Why a future failed or the handler reports an error. The core maps each to a typed exception
 * (AddressResolutionException, ConnectionRejectedException, ...); a bare errno never escapes.
 */
public sealed interface Failure {
    /** ADDR_ERROR: {@code rdma_resolve_addr} failed with {@code status}. */
    record AddressError(int status) implements Failure { }

    /** ROUTE_ERROR: {@code rdma_resolve_route} failed with {@code status}. */
    record RouteError(int status) implements Failure { }

    /** REJECTED: the peer or the fabric refused the connection, for {@code reason}. */
    record Rejected(RejectReason reason) implements Failure {
        public Rejected {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** UNREACHABLE: REQ/REP timed out ({@code -ETIMEDOUT}), SIDR failed, or the netevent path fired. */
    record Unreachable(int status) implements Failure { }

    /** CONNECT_ERROR: an error occurred while the connection was being set up ({@code status}). */
    record ConnectError(int status) implements Failure { }

    /** DISCONNECTED arrived before ESTABLISHED. */
    record PeerDisconnected(int status) implements Failure { }

    /** A deadline of the policy passed. */
    record TimedOut(TimerKind deadline) implements Failure {
        public TimedOut {
            Objects.requireNonNull(deadline, "deadline");
        }
    }

    /** DEVICE_REMOVAL or IBV_EVENT_DEVICE_FATAL. */
    record DeviceRemoved() implements Failure { }

    /** The application cancelled. */
    record Cancelled() implements Failure { }

    /**
     * A connection request died before the application decided: the peer gave up (REJECTED,
     * UNREACHABLE, CONNECT_ERROR or DISCONNECTED in REQUEST_RECEIVED), the decision deadline passed
     * (the library rejected it), or the device went away. A later accept/reject/close of that
     * request fails with this same value.
     */
    record Expired(String why) implements Failure {
        public Expired {
            Objects.requireNonNull(why, "why");
        }
    }

    /** The id was closed (or aborted) before the operation finished. */
    record Closed() implements Failure { }

    /** The command makes no sense for this kind of id or in this phase. */
    record IllegalState(String why) implements Failure {
        public IllegalState {
            Objects.requireNonNull(why, "why");
        }
    }

    /** A librdmacm or libibverbs call the machine asked for ({@code call}) failed with {@code errno}. */
    record NativeCallFailed(String call, int errno) implements Failure {
        public NativeCallFailed {
            Objects.requireNonNull(call, "call");
        }
    }

    /** An async event broke the QP (QP_FATAL, CQ_ERR, ...). */
    record QueuePairError(AsyncEventType event) implements Failure {
        public QueuePairError {
            Objects.requireNonNull(event, "event");
        }
    }

    /** MULTICAST_ERROR: the join of {@code group} failed with {@code status}. */
    record MulticastError(String group, int status) implements Failure {
        public MulticastError {
            Objects.requireNonNull(group, "group");
        }
    }

    /** The listener could not be re-created after ADDR_CHANGE/DEVICE_REMOVAL. */
    record ListenerFailed(int errno) implements Failure { }
}
