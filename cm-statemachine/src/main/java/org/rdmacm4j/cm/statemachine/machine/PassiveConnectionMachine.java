package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ActionList;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Input.CmEvent;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Draft;
import org.rdmacm4j.cm.statemachine.machine.Teardown.Mode;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/**
 * The passive (server) side of an RC connection, from the copied CONNECT_REQUEST (the listener
 * verbs acked it when it was copied) to accept or reject, ESTABLISHED and teardown. The shape of nvmet-rdma's queue
 * (nvmet_rdma_cm_handler): the application decides, the id answers the peer in every path (a
 * request that is closed, times out or whose QP cannot be created is rejected, not left to time out).
 */
public final class PassiveConnectionMachine implements CmIdMachine<PassivePhase, PassiveState> {
    private final ConnectionPolicy policy;

    public PassiveConnectionMachine(ConnectionPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    public ConnectionPolicy policy() {
        return policy;
    }

    @Override
    public String name() {
        return "passive";
    }

    @Override
    public Class<PassivePhase> phaseType() {
        return PassivePhase.class;
    }

    /**
     * The new id of a CONNECT_REQUEST (the listener's OfferRequest): remembers the request's decoded
     * private data and conn params, clamps the accept's responder resources and initiator depth to
     * min(policy, request, {@code deviceLimits}), and arms the decision deadline.
     *
     * @param request      the copied CONNECT_REQUEST the listener offered
     * @param deviceLimits the device's limits: responderResources = max_qp_rd_atom, initiatorDepth =
     *                     max_qp_init_rd_atom (retry counts are ignored)
     */
    public Transition<PassiveState> open(Input.CmEvent request, CmTuning deviceLimits) {
        Draft d = Requests.open(request, deviceLimits, policy);
        Emitter out = d;
        return new Transition<>(new PassiveState(PassivePhase.REQUEST_RECEIVED, d.build()), out.list());
    }

    @Override
    public Transition<PassiveState> step(PassiveState state, Input input) {
        Input.Variant variant = input.variant();
        if (variant == Input.Variant.CALLS_SUCCEEDED
                && (state.phase() == PassivePhase.REQUEST_RECEIVED || !state.context().settleOwed())) {
            // Every phase of a passive id ignores it (each arm below, and the matrix spec, say so),
            // and no SettleRequest is owed (once out of REQUEST_RECEIVED it never is): the core feeds
            // one after the accept's step, so that step costs no draft, emitter or dispatch.
            return new Transition<>(state, ActionList.none());
        }
        Draft d = state.context().draft();
        Emitter out = d;   // the draft is the step's emitter too: one object, not two
        out.ackIfEvent(input, variant);
        PassivePhase next = input instanceof Input.TimerExpired t && !d.timers.isCurrent(t)
                ? state.phase()
                : dispatch(state.phase(), input, variant, d, out);
        if (next != PassivePhase.REQUEST_RECEIVED) {
            Requests.settle(d, out);
        }
        ConnectionContext c = d.build();
        // A step that changed nothing keeps its state object (no equal copy per step).
        return new Transition<>(next == state.phase() && c == state.context() ? state : new PassiveState(next, c),
                out.list());
    }

    /** {@code v} is the input's variant, asked once per step (why: ActiveConnectionMachine#dispatch). */
    private PassivePhase dispatch(PassivePhase phase, Input in, Input.Variant v, Draft d, Emitter out) {
        return switch (phase) {
            case REQUEST_RECEIVED -> requestReceived(in, v, d, out);
            case ACCEPTING -> accepting(in, v, d, out);
            case ESTABLISHED -> {
                Teardown.Stage stage = Live.onInput(phase, in, v, d, out, policy);
                yield stage == Live.STAY ? phase : PassivePhase.of(stage);
            }
            case DISCONNECTING -> PassivePhase.of(Teardown.onInput(Teardown.Stage.DISCONNECTING, phase, in, v, d, out, policy, false));
            case TIMEWAIT -> PassivePhase.of(Teardown.onInput(Teardown.Stage.TIMEWAIT, phase, in, v, d, out, policy, false));
            case DRAINING -> PassivePhase.of(Teardown.onInput(Teardown.Stage.DRAINING, phase, in, v, d, out, policy, false));
            case RELEASING -> PassivePhase.of(Teardown.onInput(Teardown.Stage.RELEASING, phase, in, v, d, out, policy, false));
            case CLOSED -> {
                if (!Requests.failExpired(d, in, out)) {
                    Teardown.terminal(phase, in, out);
                }
                yield phase;
            }
        };
    }

    private PassivePhase requestReceived(Input in, Input.Variant v, Draft d, Emitter out) {
        PassivePhase phase = PassivePhase.REQUEST_RECEIVED;
        return switch (v) {
            case ACCEPT -> {
                Input.Command.Accept c = (Input.Command.Accept) in;
                if (c.payload().kind() != MessageKind.ACCEPT) {
                    yield illegal(out, c.request(), "accept needs ACCEPT private data, not " + c.payload().kind(), phase);
                }
                d.timers = d.timers.cancel(TimerKind.DECISION_DEADLINE, out);
                d.pendingOpen = c.request();
                d.openPayload(c.payload());
                d.timers = d.timers.arm(TimerKind.ACCEPT_DEADLINE, policy.deadlines().acceptNanos(), out);
                Opening.createQp(d, out);
                out.add(new Action.Accept(c.payload().wire(), d.acceptTuning()));
                d.connectSent(true);
                yield PassivePhase.ACCEPTING;
            }
            case REJECT -> {
                Input.Command.Reject c = (Input.Command.Reject) in;
                out.add(new Action.Reject(c.payload().wire()));
                out.complete(c.request(), Singletons.DONE);
                yield PassivePhase.of(Teardown.finish(d, out));
            }
            case CLOSE -> refuse(d, out, ((Input.Command.Close) in).request());
            case ABORT -> refuse(d, out, ((Input.Command.Abort) in).request());
            case DISCONNECT -> {
                Input.Command.Disconnect c = (Input.Command.Disconnect) in;
                out.complete(c.request(), Singletons.DONE);
                yield phase;
            }
            case CANCEL -> phase;
            case CONNECT -> illegal(out, ((Input.Command.Connect) in).request(), "a passive id cannot connect", phase);
            case JOIN_MULTICAST -> illegal(out, ((Input.Command.JoinMulticast) in).request(), "multicast needs a UD id", phase);
            case LEAVE_MULTICAST -> illegal(out, ((Input.Command.LeaveMulticast) in).request(), "multicast needs a UD id", phase);
            case CM_EVENT -> {
                CmEvent e = (CmEvent) in;
                yield switch (e.type()) {
                    // The active side gave up (its REQ timed out, it was destroyed) before we decided.
                    case REJECTED, UNREACHABLE, CONNECT_ERROR, DISCONNECTED -> {
                        d.connectionLost(true);
                        Requests.expire(d, out, "the peer gave up before a decision (" + e.type() + ", status "
                                + e.status() + ")");
                        yield PassivePhase.of(Teardown.finish(d, out));
                    }
                    case DEVICE_REMOVAL -> deviceGoneBeforeDecision(d, out);
                    case ADDR_CHANGE -> phase;
                    case ESTABLISHED -> unexpected(out, phase, in, "ESTABLISHED before accept");
                    case ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_RESPONSE, TIMEWAIT_EXIT ->
                            unexpected(out, phase, in, "not an event of a passive id awaiting a decision");
                    case CONNECT_REQUEST -> unexpected(out, phase, in, "connection request on a non-listening id");
                    case MULTICAST_JOIN, MULTICAST_ERROR -> unexpected(out, phase, in, "multicast event on an RC id");
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                yield switch (e.type()) {
                    case DEVICE_FATAL -> deviceGoneBeforeDecision(d, out);
                    case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, SRQ_ERR, WQ_FATAL, COMM_EST ->
                            unexpected(out, phase, in, "this id has no QP yet");
                    case SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE,
                         SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED, CLIENT_REREGISTER, GID_CHANGE -> phase;
                };
            }
            case TIMER_EXPIRED -> {
                Input.TimerExpired t = (Input.TimerExpired) in;
                d.timers = d.timers.fired(t.kind());
                if (t.kind() == TimerKind.DECISION_DEADLINE) {
                    // The application never answered: reject rather than let the peer's REQ time out.
                    Requests.reject(out, SystemReject.DECISION_TIMEOUT);
                    Requests.expire(d, out, "no decision within the decision deadline ("
                            + policy.deadlines().decision() + "); the request was rejected");
                    yield PassivePhase.of(Teardown.finish(d, out));
                }
                yield unexpected(out, phase, in, "timer not used before accept");
            }
            case QUIESCED -> unexpected(out, phase, in, "nothing is being quiesced");
            case REQUEST_SETTLED -> unexpected(out, phase, in, "only a listener offers requests");
            case CALLS_SUCCEEDED -> phase;
            case CALL_FAILED -> unexpected(out, phase, in, "no native call is outstanding");
        };
    }

    private PassivePhase refuse(Draft d, Emitter out, long request) {
        d.addCloseWaiter(request);
        Requests.reject(out, SystemReject.LISTENER_CLOSED);
        return PassivePhase.of(Teardown.finish(d, out));
    }

    private PassivePhase deviceGoneBeforeDecision(Draft d, Emitter out) {
        Requests.expire(d, out, "the device was removed before a decision");
        return PassivePhase.of(Teardown.begin(d, out, policy, Mode.DEVICE_GONE, Singletons.DEVICE_REMOVED));
    }

    private PassivePhase accepting(Input in, Input.Variant v, Draft d, Emitter out) {
        PassivePhase phase = PassivePhase.ACCEPTING;
        return switch (v) {
            case CM_EVENT -> {
                CmEvent e = (CmEvent) in;
                yield switch (e.type()) {
                    case ESTABLISHED -> {
                        d.timers = d.timers.cancel(TimerKind.ACCEPT_DEADLINE, out);
                        d.established(true);
                        // The peer's data is the CONNECT_REQUEST's: ESTABLISHED (the RTU) carries none.
                        Outcome.Connected connected = new Outcome.Connected(d.peerData(), d.requestParams());
                        out.complete(d.pendingOpen, connected);
                        d.pendingOpen = 0;
                        out.notice(new Notice.Established(connected));
                        yield PassivePhase.ESTABLISHED;
                    }
                    case REJECTED -> {
                        d.connectionLost(true);
                        yield fail(d, out, new Failure.Rejected(RejectReason.decode(policy.transport(), e.status(),
                                e.params().privateData())), Mode.ABORT);
                    }
                    case UNREACHABLE -> {
                        d.connectionLost(true);
                        yield fail(d, out, new Failure.Unreachable(e.status()), Mode.ABORT);
                    }
                    case CONNECT_ERROR -> {
                        d.connectionLost(true);
                        yield fail(d, out, new Failure.ConnectError(e.status()), Mode.ABORT);
                    }
                    case DISCONNECTED -> {
                        Teardown.answerDisconnect(d, out);
                        yield fail(d, out, new Failure.PeerDisconnected(e.status()), Mode.ABORT);
                    }
                    case DEVICE_REMOVAL -> fail(d, out, Singletons.DEVICE_REMOVED, Mode.DEVICE_GONE);
                    case ADDR_CHANGE -> phase;
                    case TIMEWAIT_EXIT -> unexpected(out, phase, in, "no connection in timewait");
                    case ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_RESPONSE ->
                            unexpected(out, phase, in, "not an event of a passive id");
                    case CONNECT_REQUEST -> unexpected(out, phase, in, "connection request on a non-listening id");
                    case MULTICAST_JOIN, MULTICAST_ERROR -> unexpected(out, phase, in, "multicast event on an RC id");
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                yield switch (e.type()) {
                    // Data arrived before the RTU: tell the CM the connection is up (nvmet_rdma_qp_event).
                    case COMM_EST -> {
                        out.add(Singletons.NOTIFY);
                        yield phase;
                    }
                    case DEVICE_FATAL -> fail(d, out, Singletons.DEVICE_REMOVED, Mode.DEVICE_GONE);
                    case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, SRQ_ERR, WQ_FATAL ->
                            fail(d, out, new Failure.QueuePairError(e.type()), Mode.ABORT);
                    case SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE,
                         SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED, CLIENT_REREGISTER, GID_CHANGE -> phase;
                };
            }
            case TIMER_EXPIRED -> {
                Input.TimerExpired t = (Input.TimerExpired) in;
                d.timers = d.timers.fired(t.kind());
                yield t.kind() == TimerKind.ACCEPT_DEADLINE
                        ? fail(d, out, new Failure.TimedOut(TimerKind.ACCEPT_DEADLINE), Mode.ABORT)
                        : unexpected(out, phase, in, "timer not used while accepting");
            }
            case QUIESCED -> unexpected(out, phase, in, "nothing is being quiesced");
            case REQUEST_SETTLED -> unexpected(out, phase, in, "only a listener offers requests");
            case CALLS_SUCCEEDED -> phase;
            case CALL_FAILED -> {
                Input.CallFailed f = (Input.CallFailed) in;
                yield switch (f.call()) {
                    case Action.CreateQp a -> {
                        // The core rolled back the QP and the CQ and channel it created in that call.
                        d.hasQp(false);
                        d.hasCq(false);
                        d.connectSent(false);
                        Requests.reject(out, SystemReject.ACCEPT_FAILED);
                        yield fail(d, out, new Failure.NativeCallFailed("rdma_create_qp", f.errno()), Mode.ABORT);
                    }
                    case Action.Accept a -> {
                        d.connectSent(false);
                        Requests.reject(out, SystemReject.ACCEPT_FAILED);
                        yield fail(d, out, new Failure.NativeCallFailed("rdma_accept", f.errno()), Mode.ABORT);
                    }
                    case Action.CreateId a -> unexpected(out, phase, in, "a passive id is never re-created");
                    case Action.ResolveAddr a -> unexpected(out, phase, in, "a passive id never resolves");
                    case Action.ResolveRoute a -> unexpected(out, phase, in, "a passive id never resolves");
                    case Action.Connect a -> unexpected(out, phase, in, "a passive id never connects");
                    case Action.JoinMulticast a -> unexpected(out, phase, in, "an RC id never joins");
                    case Action.Relisten a -> unexpected(out, phase, in, "a passive id never listens");
                };
            }
            case CLOSE -> {
                Input.Command.Close c = (Input.Command.Close) in;
                d.addCloseWaiter(c.request());
                yield fail(d, out, Singletons.CLOSED, Mode.ABORT);
            }
            case ABORT -> {
                Input.Command.Abort c = (Input.Command.Abort) in;
                d.addCloseWaiter(c.request());
                yield fail(d, out, Singletons.CLOSED, Mode.ABORT);
            }
            case DISCONNECT -> {
                Input.Command.Disconnect c = (Input.Command.Disconnect) in;
                d.addDisconnectWaiter(c.request());
                yield fail(d, out, Singletons.CLOSED, Mode.ABORT);
            }
            case CANCEL -> fail(d, out, Singletons.CANCELLED, Mode.ABORT);
            case ACCEPT -> illegal(out, ((Input.Command.Accept) in).request(), "already accepting", phase);
            case REJECT -> illegal(out, ((Input.Command.Reject) in).request(), "already accepted", phase);
            case CONNECT -> illegal(out, ((Input.Command.Connect) in).request(), "a passive id cannot connect", phase);
            case JOIN_MULTICAST -> illegal(out, ((Input.Command.JoinMulticast) in).request(), "multicast needs a UD id", phase);
            case LEAVE_MULTICAST -> illegal(out, ((Input.Command.LeaveMulticast) in).request(), "multicast needs a UD id", phase);
        };
    }

    private PassivePhase fail(Draft d, Emitter out, Failure failure, Mode mode) {
        return PassivePhase.of(Teardown.begin(d, out, policy, mode, failure));
    }

    private static PassivePhase unexpected(Emitter out, PassivePhase phase, Input in, String why) {
        out.unexpected(phase, in, why);
        return phase;
    }

    private static PassivePhase illegal(Emitter out, long request, String why, PassivePhase phase) {
        out.fail(request, new Failure.IllegalState(why));
        return phase;
    }
}
