package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * Everything that can happen to an id, as an immutable value. The machines switch over its
 * {@link Variant} exhaustively (see {@link #variant()} for why not over the sealed type itself): the
 * compiler proves that no kind of input is forgotten, and {@code VariantsTest} that every record
 * answers its own constant.
 */
public sealed interface Input {

    /**
     * Which record this is. The switches that run on every connection (the RC machines, the core's
     * action and notice dispatch) switch over this enum, not over the sealed type: JDK 25 links each
     * pattern {@code switch} call site on its first run by generating and loading a class
     * ({@code SwitchBootstraps.typeSwitch}), 30-50 ms each in the soft-RoCE guest, which the AOT cache
     * does not keep, while an enum switch is plain bytecode. The compiler still proves such a switch
     * exhaustive, over the constants; {@code VariantsTest} checks that each record answers its own.
     */
    Variant variant();

    /** One constant per record, named after it. */
    enum Variant {
        CM_EVENT,
        ASYNC_EVENT,
        TIMER_EXPIRED,
        QUIESCED,
        CALL_FAILED,
        REQUEST_SETTLED,
        CALLS_SUCCEEDED,
        CONNECT,
        ACCEPT,
        REJECT,
        DISCONNECT,
        CLOSE,
        ABORT,
        CANCEL,
        JOIN_MULTICAST,
        LEAVE_MULTICAST
    }


    /**
     * A copied {@code struct rdma_cm_event}. {@code seq} is the dispatcher's number for the native
     * event. The verbs layer acked the native event when it copied it; the machine still answers the
     * input with exactly one {@link Action.AckCmEvent}, which is bookkeeping only (no native call).
     */
    record CmEvent(long seq, CmEventType type, int status, EventParams params) implements Input {
        @Override public Variant variant() { return Variant.CM_EVENT; }

        public CmEvent {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(params, "params");
        }

        public static CmEvent of(long seq, CmEventType type, int status) {
            return new CmEvent(seq, type, status, new EventParams.None());
        }
    }

    /**
     * A copied {@code struct ibv_async_event} routed to this id (its QP/CQ/SRQ, or the port/device it
     * is bound to), already acked by the verbs layer when it was copied. Answered with exactly one
     * {@link Action.AckAsyncEvent} (bookkeeping only, no native call).
     */
    record AsyncEvent(long seq, AsyncEventType type, int portNum) implements Input {
        @Override public Variant variant() { return Variant.ASYNC_EVENT; }

        public AsyncEvent {
            Objects.requireNonNull(type, "type");
        }
    }

    /** A timer armed by {@link Action.ArmTimer} fired. A stale generation is ignored. */
    record TimerExpired(TimerKind kind, long generation) implements Input {
        @Override public Variant variant() { return Variant.TIMER_EXPIRED; }

        public TimerExpired {
            Objects.requireNonNull(kind, "kind");
        }
    }

    /**
     * The owner of a resource confirms it is quiet: for {@link Resource#QP} the QP is flushed
     * (answer to {@link Action.DrainQp}); for {@link Resource#CQ} the poller stopped and acked every
     * completion event with {@code ibv_ack_cq_events} (answer to {@link Action.QuiesceCq}).
     */
    record Quiesced(Resource resource) implements Input {
        @Override public Variant variant() { return Variant.QUIESCED; }

        public Quiesced {
            Objects.requireNonNull(resource, "resource");
        }
    }

    /**
     * A fallible native call of the previous transition failed. The core runs actions in order and
     * stops at the first failure, so every action before {@code call} ran and none after it did.
     */
    record CallFailed(Action.NativeCall call, int errno) implements Input {
        @Override public Variant variant() { return Variant.CALL_FAILED; }

        public CallFailed {
            Objects.requireNonNull(call, "call");
        }
    }

    /**
     * Listener only: a request it offered has left REQUEST_RECEIVED (accepted, rejected, timed out or
     * abandoned by the peer). The core feeds it to the listener that offered the request when the
     * request's own machine emits {@link Action.SettleRequest}; it never infers it from phases. Lets
     * the listener bound the requests the application has not decided.
     */
    record RequestSettled() implements Input {
        @Override public Variant variant() { return Variant.REQUEST_SETTLED; }
    }

    /**
     * Every fallible call of the previous step succeeded. The core feeds it to an id right after a
     * step whose action list contained at least one {@link Action.NativeCall} and none failed, before
     * any other input to that id (it is the success twin of {@link CallFailed}). Machines use it to
     * complete a future that depends on those calls (a multicast-only UD connect after its CreateQp,
     * a SIDR accept after its Accept); in every other (phase) it is silently ignored, never logged.
     */
    record CallsSucceeded() implements Input {
        @Override public Variant variant() { return Variant.CALLS_SUCCEEDED; }
    }

    /** Resources whose quiescence gates a destroy step. */
    enum Resource { QP, CQ }

    /**
     * A local request. Those with a {@code request} number own a future that the machine completes
     * or fails exactly once ({@link Action.CompleteFuture}, {@link Action.FailFuture}).
     */
    sealed interface Command extends Input {
        /** Start: active RC connect, or UD address resolution (plus SIDR if the policy says so). */
        record Connect(long request, PrivateData payload) implements Command {
            @Override public Variant variant() { return Variant.CONNECT; }

            public Connect {
                Objects.requireNonNull(payload, "payload");
            }
        }

        /** Accept a connection request (RC: REP; UD: SIDR_REP). */
        record Accept(long request, PrivateData payload) implements Command {
            @Override public Variant variant() { return Variant.ACCEPT; }

            public Accept {
                Objects.requireNonNull(payload, "payload");
            }
        }

        /** Reject a connection request with a consumer reject (IB status 28) carrying {@code payload}. */
        record Reject(long request, PrivateData payload) implements Command {
            @Override public Variant variant() { return Variant.REJECT; }

            public Reject {
                Objects.requireNonNull(payload, "payload");
                checkArgument(payload.kind() == MessageKind.REJECT,
                        "a reject carries REJECT private data, not %s", payload.kind());
            }
        }

        /** Graceful disconnect; completes when the peer answered (DISCONNECTED) or the deadline passed. */
        record Disconnect(long request) implements Command {
            @Override public Variant variant() { return Variant.DISCONNECT; }
        }

        /** Graceful close; completes when every resource of the id is destroyed. */
        record Close(long request) implements Command {
            @Override public Variant variant() { return Variant.CLOSE; }
        }

        /** Close without waiting for the peer: no DISCONNECTED wait, no TIMEWAIT wait. */
        record Abort(long request) implements Command {
            @Override public Variant variant() { return Variant.ABORT; }
        }

        /** Give up a pending connect/accept/join (its future fails with Cancelled); no-op otherwise. */
        record Cancel() implements Command {
            @Override public Variant variant() { return Variant.CANCEL; }
        }

        /** Join multicast {@code group} (UD ids). */
        record JoinMulticast(long request, String group) implements Command {
            @Override public Variant variant() { return Variant.JOIN_MULTICAST; }

            public JoinMulticast {
                Objects.requireNonNull(group, "group");
            }
        }

        /** Leave multicast {@code group}. */
        record LeaveMulticast(long request, String group) implements Command {
            @Override public Variant variant() { return Variant.LEAVE_MULTICAST; }

            public LeaveMulticast {
                Objects.requireNonNull(group, "group");
            }
        }
    }
}
