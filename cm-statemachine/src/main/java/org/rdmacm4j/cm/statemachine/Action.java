package org.rdmacm4j.cm.statemachine;

import java.util.Objects;

/**
 * What the core must do, in list order, for one transition. Actions are data: the machine decides,
 * the core (the CM dispatcher) executes. Contract with the core:
 * <ul>
 *   <li>Actions run in order. A {@link NativeCall} may fail: the core then skips the rest of the
 *       list and feeds {@link Input.CallFailed} before any other input. The machines therefore put
 *       every fallible call after every action that must not be lost (acks, futures, timers).</li>
 *   <li>If a step contained at least one {@link NativeCall} and none failed, the core feeds
 *       {@link Input.CallsSucceeded} before any other input to that id.</li>
 *   <li>All other actions cannot fail from the machine's point of view (a failing destroy is
 *       logged by the core and the teardown goes on), and a destroy of an object that does not
 *       exist is a no-op.</li>
 *   <li>{@link AckCmEvent} and {@link AckAsyncEvent} are bookkeeping: the verbs layer
 *       ({@code CmEventChannel.getEvent}, {@code DeviceContext.getAsyncEvent}) copies every native
 *       event and acks it at once, so the core makes <em>no</em> native call for them. They only
 *       record that the input's event was consumed.</li>
 * </ul>
 */
public sealed interface Action {

    /** Which record this is, for the switches on a connection's path (why: {@link Input#variant()}). */
    Variant variant();

    /** One constant per record, named after it. */
    enum Variant {
        ACK_CM_EVENT(false),
        ACK_ASYNC_EVENT(false),
        CREATE_ID(true),
        RESOLVE_ADDR(true),
        RESOLVE_ROUTE(true),
        CREATE_QP(true),
        CONNECT(true),
        ACCEPT(true),
        JOIN_MULTICAST(true),
        RELISTEN(true),
        REJECT(false),
        NOTIFY(false),
        DISCONNECT(false),
        DRAIN_QP(false),
        DESTROY_QP(false),
        QUIESCE_CQ(false),
        DESTROY_CQ(false),
        DESTROY_COMP_CHANNEL(false),
        DESTROY_ID(false),
        LEAK_ID(false),
        LEAVE_MULTICAST(false),
        OFFER_REQUEST(false),
        REFUSE_REQUEST(false),
        SETTLE_REQUEST(false),
        ARM_TIMER(false),
        CANCEL_TIMER(false),
        COMPLETE_FUTURE(false),
        FAIL_FUTURE(false),
        CALL_HANDLER(false),
        LOG_UNEXPECTED(false);

        private final boolean nativeCall;

        Variant(boolean nativeCall) {
            this.nativeCall = nativeCall;
        }

        /**
         * Whether the records of this constant are {@link NativeCall}s. The engine asks this of
         * every action it runs instead of {@code instanceof NativeCall}: a failed {@code instanceof}
         * of an interface takes C1's slow subtype check (a scan of the class's secondary supers),
         * and most actions are not native calls (VariantsTest keeps the two answers equal).
         */
        public boolean nativeCall() {
            return nativeCall;
        }
    }


    /** Native calls whose failure changes what the machine does next. */
    sealed interface NativeCall extends Action { }

    /**
     * Bookkeeping: the CM event with this sequence number was consumed by this step. It was already
     * acked ({@code rdma_ack_cm_event}) by the verbs layer when it was copied; the core makes no
     * native call and must not ack it again. Exactly one per CmEvent input, first in the list.
     */
    record AckCmEvent(long seq) implements Action {
        @Override public Variant variant() { return Variant.ACK_CM_EVENT; }
    }

    /**
     * Bookkeeping: the async event with this sequence number was consumed by this step. It was
     * already acked ({@code ibv_ack_async_event}) by the verbs layer when it was copied; the core
     * makes no native call. Exactly one per AsyncEvent input, first in the list.
     */
    record AckAsyncEvent(long seq) implements Action {
        @Override public Variant variant() { return Variant.ACK_ASYNC_EVENT; }
    }

    /** {@code rdma_create_id} (a fresh id for a retry after REJECTED: an id that was rejected cannot connect again). */
    record CreateId() implements NativeCall {
        @Override public Variant variant() { return Variant.CREATE_ID; }
    }

    /** {@code rdma_resolve_addr} with the kernel-side timeout. */
    record ResolveAddr(int timeoutMs) implements NativeCall {
        @Override public Variant variant() { return Variant.RESOLVE_ADDR; }
    }

    /** {@code rdma_resolve_route} with the kernel-side timeout. */
    record ResolveRoute(int timeoutMs) implements NativeCall {
        @Override public Variant variant() { return Variant.RESOLVE_ROUTE; }
    }

    /** Create the QP on the id ({@code rdma_create_qp}), plus its CQ(s) and completion channel if absent. */
    record CreateQp() implements NativeCall {
        @Override public Variant variant() { return Variant.CREATE_QP; }
    }

    /** {@code rdma_connect} (RC: REQ; UD: SIDR_REQ). */
    record Connect(Bytes privateData, CmTuning tuning) implements NativeCall {
        @Override public Variant variant() { return Variant.CONNECT; }

        public Connect {
            Objects.requireNonNull(privateData, "privateData");
            Objects.requireNonNull(tuning, "tuning");
        }
    }

    /** {@code rdma_accept} (RC: REP; UD: SIDR_REP). */
    record Accept(Bytes privateData, CmTuning tuning) implements NativeCall {
        @Override public Variant variant() { return Variant.ACCEPT; }

        public Accept {
            Objects.requireNonNull(privateData, "privateData");
            Objects.requireNonNull(tuning, "tuning");
        }
    }

    /** {@code rdma_join_multicast} with the group as context. */
    record JoinMulticast(String group) implements NativeCall {
        @Override public Variant variant() { return Variant.JOIN_MULTICAST; }

        public JoinMulticast {
            Objects.requireNonNull(group, "group");
        }
    }

    /** Listener: destroy nothing, create a fresh id, bind it to the listener's address, listen. */
    record Relisten() implements NativeCall {
        @Override public Variant variant() { return Variant.RELISTEN; }
    }

    /**
     * {@code rdma_reject} (IB: consumer reject, status 28, with these bytes; iWARP: MPA reject).
     * The bytes are already framed: an application reject ({@code 0xA1} framing) or a system reject
     * the library sends itself ({@link org.rdmacm4j.cm.statemachine.privatedata.SystemReject}).
     */
    record Reject(Bytes privateData) implements Action {
        @Override public Variant variant() { return Variant.REJECT; }

        public Reject {
            Objects.requireNonNull(privateData, "privateData");
        }
    }

    /** {@code rdma_notify}: COMM_EST arrived before the RTU; tell the CM the connection is up. */
    record Notify() implements Action {
        @Override public Variant variant() { return Variant.NOTIFY; }
    }

    /** {@code rdma_disconnect}: sends DREQ (or answers one) and moves the QP to the error state. */
    record Disconnect() implements Action {
        @Override public Variant variant() { return Variant.DISCONNECT; }
    }

    /** Flush the QP (error state, wait for the flush completions); answered by Quiesced(QP). */
    record DrainQp() implements Action {
        @Override public Variant variant() { return Variant.DRAIN_QP; }
    }

    /**
     * {@code rdma_destroy_qp}. Only after the QP was drained (Quiesced(QP), its drain deadline, or
     * the device gone), after Quiesced(CQ) (the poller stopped: it cannot touch the QP any more),
     * and with no multicast group attached.
     */
    record DestroyQp() implements Action {
        @Override public Variant variant() { return Variant.DESTROY_QP; }
    }

    /** Ask the completion poller to stop and ack its CQ events; answered by Quiesced(CQ). */
    record QuiesceCq() implements Action {
        @Override public Variant variant() { return Variant.QUIESCE_CQ; }
    }

    /** {@code ibv_destroy_cq} for the id's CQ(s). Only after Quiesced(CQ). */
    record DestroyCq() implements Action {
        @Override public Variant variant() { return Variant.DESTROY_CQ; }
    }

    /** {@code ibv_destroy_comp_channel}. Only after the CQs that use it are destroyed. */
    record DestroyCompChannel() implements Action {
        @Override public Variant variant() { return Variant.DESTROY_COMP_CHANNEL; }
    }

    /** {@code rdma_destroy_id}. Only when every CM event of the id has been acked (it blocks otherwise). */
    record DestroyId() implements Action {
        @Override public Variant variant() { return Variant.DESTROY_ID; }
    }

    /**
     * Give up on the id without destroying it: the core forgets the id and every native object it
     * still owns (QP, CQ, completion channel), destroys none of them, and logs {@code why}. Used
     * only where a destroy would block the dispatcher (iWARP: {@code iw_cm_disconnect} and
     * {@code rdma_destroy_id} wait for an MPA reply that did not come before its deadline). It
     * replaces every later destroy of that id; the id reaches its terminal phase in the same step.
     */
    record LeakId(String why) implements Action {
        @Override public Variant variant() { return Variant.LEAK_ID; }

        public LeakId {
            Objects.requireNonNull(why, "why");
        }
    }

    /** {@code rdma_leave_multicast}. */
    record LeaveMulticast(String group) implements Action {
        @Override public Variant variant() { return Variant.LEAVE_MULTICAST; }

        public LeaveMulticast {
            Objects.requireNonNull(group, "group");
        }
    }

    /** Listener: hand a copied connection request to the application (a passive machine is created for it). */
    record OfferRequest(Input.CmEvent request) implements Action {
        @Override public Variant variant() { return Variant.OFFER_REQUEST; }

        public OfferRequest {
            Objects.requireNonNull(request, "request");
        }
    }

    /**
     * Listener: do not offer this request; {@code rdma_reject} the new id with {@code rejectData}
     * (a system reject: busy under backpressure or while re-listening, listener closed after close)
     * and destroy it. No machine is created for it and no RequestSettled follows.
     */
    record RefuseRequest(Input.CmEvent request, Bytes rejectData) implements Action {
        @Override public Variant variant() { return Variant.REFUSE_REQUEST; }

        public RefuseRequest {
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(rejectData, "rejectData");
        }
    }

    /**
     * Passive or UD-server machine (created from an OfferRequest): the request has left
     * REQUEST_RECEIVED (accepted, rejected, expired, abandoned by the peer, closed, device gone).
     * Emitted exactly once per request machine. Not a native call: the core feeds
     * {@link Input.RequestSettled} to the listener that offered the request.
     */
    record SettleRequest() implements Action {
        @Override public Variant variant() { return Variant.SETTLE_REQUEST; }
    }

    /** Arm (or re-arm) timer {@code kind}; its expiry comes back as TimerExpired(kind, generation). */
    record ArmTimer(TimerKind kind, long generation, long delayNanos) implements Action {
        @Override public Variant variant() { return Variant.ARM_TIMER; }

        public ArmTimer {
            Objects.requireNonNull(kind, "kind");
        }
    }

    /** Cancel timer {@code kind} of this {@code generation}; an expiry already on its way is then ignored. */
    record CancelTimer(TimerKind kind, long generation) implements Action {
        @Override public Variant variant() { return Variant.CANCEL_TIMER; }

        public CancelTimer {
            Objects.requireNonNull(kind, "kind");
        }
    }

    /** Complete the future of command {@code request}. Emitted at most once per request. */
    record CompleteFuture(long request, Outcome outcome) implements Action {
        @Override public Variant variant() { return Variant.COMPLETE_FUTURE; }

        public CompleteFuture {
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /** Fail the future of command {@code request}. Emitted at most once per request. */
    record FailFuture(long request, Failure failure) implements Action {
        @Override public Variant variant() { return Variant.FAIL_FUTURE; }

        public FailFuture {
            Objects.requireNonNull(failure, "failure");
        }
    }

    /** Call the application's handler (off the dispatcher thread). */
    record CallHandler(Notice notice) implements Action {
        @Override public Variant variant() { return Variant.CALL_HANDLER; }

        public CallHandler {
            Objects.requireNonNull(notice, "notice");
        }
    }

    /** An input the machine did not expect in this phase. Logged by the core; never an exception. */
    record LogUnexpected(String phase, String input, String why) implements Action {
        @Override public Variant variant() { return Variant.LOG_UNEXPECTED; }

        public LogUnexpected {
            Objects.requireNonNull(phase, "phase");
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(why, "why");
        }
    }
}
