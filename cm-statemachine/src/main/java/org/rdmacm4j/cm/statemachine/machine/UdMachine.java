package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Input.CmEvent;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Draft;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Group;
import org.rdmacm4j.cm.statemachine.machine.Teardown.Mode;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/**
 * A UD id (RDMA_PS_UDP), the shape of mckey and udaddy: resolve the address, create the UD QP, then
 * join and leave multicast groups (each join with its own future) and, if the policy says so,
 * resolve a unicast peer with SIDR. MULTICAST_ERROR on a joined group (e.g. -ENETRESET after an SM
 * client re-register, which ib_sa turns into this event) re-joins it up to
 * {@link ConnectionPolicy#maxRejoins()} times. The server side of SIDR starts in REQUEST_RECEIVED.
 */
public final class UdMachine implements CmIdMachine<UdPhase, UdState> {
    private final ConnectionPolicy policy;
    private final Resolution<UdPhase> resolution;

    public UdMachine(ConnectionPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.resolution = new Resolution<>(policy, UdPhase.RESOLVING_ADDR, UdPhase.RESOLVING_ROUTE, UdPhase.BACKOFF,
                UdPhase::of);
    }

    public ConnectionPolicy policy() {
        return policy;
    }

    @Override
    public String name() {
        return "ud";
    }

    @Override
    public Class<UdPhase> phaseType() {
        return UdPhase.class;
    }

    /**
     * The new id of a SIDR request on a UD listener (the listener's OfferRequest): remembers the
     * request's decoded private data and params (the accept's outcome carries them) and arms the
     * decision deadline.
     *
     * @param request      the copied CONNECT_REQUEST the listener offered
     * @param deviceLimits the device's limits (a SIDR reply has no RDMA read resources; kept for symmetry)
     */
    public Transition<UdState> openRequest(Input.CmEvent request, CmTuning deviceLimits) {
        Draft d = Requests.open(request, deviceLimits, policy);
        Emitter out = d;
        return new Transition<>(new UdState(UdPhase.REQUEST_RECEIVED, d.build()), out.list());
    }

    @Override
    public Transition<UdState> step(UdState state, Input input) {
        // Asked once and handed down, as the RC machines do: each in.variant() is an interface call
        // with sixteen receiver classes under C1 (an itable stub); ackIfEvent, the phase's arm and
        // Teardown.onInput each asked again.
        Input.Variant variant = input.variant();
        Draft d = state.context().draft();
        Emitter out = d;   // the draft is the step's emitter too: one object, not two
        out.ackIfEvent(input, variant);
        UdPhase next = input instanceof Input.TimerExpired t && !d.timers.isCurrent(t)
                ? state.phase()
                : dispatch(state.phase(), input, variant, d, out);
        if (next != UdPhase.REQUEST_RECEIVED) {
            Requests.settle(d, out);
        }
        ConnectionContext c = d.build();
        // A step that changed nothing keeps its state object (no equal copy per step).
        return new Transition<>(next == state.phase() && c == state.context() ? state : new UdState(next, c),
                out.list());
    }

    /** {@code v} is the input's variant, asked once per step (why: ActiveConnectionMachine#dispatch). */
    private UdPhase dispatch(UdPhase phase, Input in, Input.Variant v, Draft d, Emitter out) {
        return switch (phase) {
            case IDLE, RESOLVING_ADDR, RESOLVING_ROUTE, SIDR_QUERY, BACKOFF, REQUEST_RECEIVED ->
                    opening(phase, in, v, d, out);
            case READY -> ready(in, v, d, out);
            case DRAINING ->
                    UdPhase.of(Teardown.onInput(Teardown.Stage.DRAINING, phase, in, v, d, out, policy, true));
            case RELEASING ->
                    UdPhase.of(Teardown.onInput(Teardown.Stage.RELEASING, phase, in, v, d, out, policy, true));
            case CLOSED -> {
                if (!Requests.failExpired(d, in, out)) {
                    Teardown.terminal(phase, in, out);
                }
                yield phase;
            }
        };
    }

    private UdPhase opening(UdPhase phase, Input in, Input.Variant v, Draft d, Emitter out) {
        return switch (v) {
            case CM_EVENT -> {
                CmEvent e = (CmEvent) in;
                yield switch (e.type()) {
                    case ADDR_RESOLVED -> {
                        if (!resolution.awaitingAddr(phase, in, out)) {
                            yield phase;
                        }
                        if (policy.sidr()) {
                            yield resolution.resolveRoute(d, out);
                        }
                        // Multicast only: the id is bound; complete first, the QP creation is last (fallible).
                        yield ready(d, out, new Outcome.UdReady(PrivateData.Received.nothing(), e.params()));
                    }
                    case ADDR_ERROR -> resolution.addrError(phase, e, d, out);
                    case ROUTE_RESOLVED -> {
                        if (!resolution.awaitingRoute(phase, in, out)) {
                            yield phase;
                        }
                        // A SIDR_REQ opens no connection: connectSent stays false, so the teardown never disconnects.
                        out.add(new Action.Connect(d.openPayload().wire(), policy.tuning()));
                        yield UdPhase.SIDR_QUERY;
                    }
                    case ROUTE_ERROR -> resolution.routeError(phase, e, d, out);
                    case ESTABLISHED -> {
                        if (phase != UdPhase.SIDR_QUERY) {
                            yield unexpected(out, phase, in, "no SIDR query is outstanding");
                        }
                        Opening.opened(d, out, new Outcome.UdReady(PrivateData.decode(e.params().privateData()),
                                e.params()));
                        yield UdPhase.READY;
                    }
                    // cma_sidr_rep_handler reports a SIDR_REP with a bad status, and a SIDR timeout, as UNREACHABLE.
                    case UNREACHABLE -> switch (phase) {
                        case RESOLVING_ADDR, RESOLVING_ROUTE, SIDR_QUERY -> fail(d, out, new Failure.Unreachable(e.status()),
                                Mode.ABORT);
                        case REQUEST_RECEIVED -> {
                            Requests.expire(d, out, "the peer gave up before a decision (UNREACHABLE, status "
                                    + e.status() + ")");
                            yield UdPhase.of(Teardown.finish(d, out));
                        }
                        case IDLE, BACKOFF, READY, DRAINING, RELEASING, CLOSED ->
                                unexpected(out, phase, in, "nothing is in flight");
                    };
                    case REJECTED -> phase == UdPhase.SIDR_QUERY
                            ? fail(d, out, new Failure.Rejected(RejectReason.decode(policy.transport(), e.status(),
                                    e.params().privateData())), Mode.ABORT)
                            : unexpected(out, phase, in, "no SIDR query is outstanding");
                    case CONNECT_ERROR -> phase == UdPhase.SIDR_QUERY
                            ? fail(d, out, new Failure.ConnectError(e.status()), Mode.ABORT)
                            : unexpected(out, phase, in, "no SIDR query is outstanding");
                    case DEVICE_REMOVAL -> deviceGoneWhileOpening(phase, d, out);
                    case ADDR_CHANGE -> phase;
                    case DISCONNECTED, TIMEWAIT_EXIT, CONNECT_RESPONSE ->
                            unexpected(out, phase, in, "a UD id has no connection");
                    case CONNECT_REQUEST -> unexpected(out, phase, in, "connection request on a non-listening id");
                    case MULTICAST_JOIN, MULTICAST_ERROR -> unexpected(out, phase, in, "no join before the id is ready");
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                yield switch (e.type()) {
                    case DEVICE_FATAL -> deviceGoneWhileOpening(phase, d, out);
                    case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, SRQ_ERR, WQ_FATAL -> d.hasQp()
                            ? fail(d, out, new Failure.QueuePairError(e.type()), Mode.ABORT)
                            : unexpected(out, phase, in, "queue error but this id has no QP yet");
                    case COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE,
                         SM_CHANGE, SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED, CLIENT_REREGISTER, GID_CHANGE -> phase;
                };
            }
            case TIMER_EXPIRED -> {
                Input.TimerExpired t = (Input.TimerExpired) in;
                d.timers = d.timers.fired(t.kind());
                yield switch (t.kind()) {
                    case CONNECT_DEADLINE -> fail(d, out, new Failure.TimedOut(TimerKind.CONNECT_DEADLINE), Mode.ABORT);
                    case RETRY_BACKOFF -> resolution.retryDue(phase, t, d, out);
                    case DECISION_DEADLINE -> {
                        if (phase != UdPhase.REQUEST_RECEIVED) {
                            yield unexpected(out, phase, in, "no request is waiting for a decision");
                        }
                        Requests.reject(out, SystemReject.DECISION_TIMEOUT);
                        Requests.expire(d, out, "no decision within the decision deadline ("
                                + policy.deadlines().decision() + "); the request was rejected");
                        yield UdPhase.of(Teardown.finish(d, out));
                    }
                    case ACCEPT_DEADLINE, DISCONNECT_DEADLINE, TIMEWAIT_DEADLINE, DRAIN_DEADLINE, QUIESCE_DEADLINE,
                         RELISTEN_BACKOFF, CONNECT_RESULT_DEADLINE -> unexpected(out, phase, in, "timer not used while opening");
                };
            }
            case QUIESCED -> unexpected(out, phase, in, "nothing is being quiesced");
            case REQUEST_SETTLED -> unexpected(out, phase, in, "only a listener offers requests");
            case CALLS_SUCCEEDED -> callsSucceeded(phase, d, out);
            case CALL_FAILED -> callFailed(phase, (Input.CallFailed) in, d, out);
            case CONNECT -> {
                Input.Command.Connect c = (Input.Command.Connect) in;
                if (phase != UdPhase.IDLE) {
                    yield illegal(out, c.request(), "already started", phase);
                }
                if (c.payload().kind() != MessageKind.SIDR_REQUEST) {
                    yield illegal(out, c.request(), "a UD connect needs SIDR_REQUEST private data, not "
                            + c.payload().kind(), phase);
                }
                d.pendingOpen = c.request();
                d.openPayload(c.payload());
                Opening.start(d, out, policy);
                yield UdPhase.RESOLVING_ADDR;
            }
            case ACCEPT -> {
                Input.Command.Accept c = (Input.Command.Accept) in;
                if (phase != UdPhase.REQUEST_RECEIVED) {
                    yield illegal(out, c.request(), "no SIDR request to accept", phase);
                }
                if (c.payload().kind() != MessageKind.SIDR_REPLY) {
                    yield illegal(out, c.request(), "a SIDR accept needs SIDR_REPLY private data, not "
                            + c.payload().kind(), phase);
                }
                d.timers = d.timers.cancel(TimerKind.DECISION_DEADLINE, out);
                d.established(true);
                // There is no ESTABLISHED for the SIDR server: the reply is the whole exchange. The future
                // completes on CallsSucceeded, once CreateQp and rdma_accept (the SIDR_REP) succeeded.
                d.pendingOpen = c.request();
                d.pendingOutcome(new Outcome.UdReady(d.peerData(), d.requestParams()));
                Opening.createQp(d, out);
                out.add(new Action.Accept(c.payload().wire(), d.acceptTuning()));
                yield UdPhase.READY;
            }
            case REJECT -> {
                Input.Command.Reject c = (Input.Command.Reject) in;
                if (phase != UdPhase.REQUEST_RECEIVED) {
                    yield illegal(out, c.request(), "no SIDR request to reject", phase);
                }
                out.add(new Action.Reject(c.payload().wire()));
                out.complete(c.request(), Singletons.DONE);
                yield UdPhase.of(Teardown.finish(d, out));
            }
            case CLOSE -> {
                Input.Command.Close c = (Input.Command.Close) in;
                d.addCloseWaiter(c.request());
                yield closeOpening(phase, d, out, Singletons.CLOSED);
            }
            case ABORT -> {
                Input.Command.Abort c = (Input.Command.Abort) in;
                d.addCloseWaiter(c.request());
                yield closeOpening(phase, d, out, Singletons.CLOSED);
            }
            case CANCEL -> phase == UdPhase.IDLE || phase == UdPhase.REQUEST_RECEIVED
                    ? phase
                    : fail(d, out, Singletons.CANCELLED, Mode.ABORT);
            case DISCONNECT -> {
                Input.Command.Disconnect c = (Input.Command.Disconnect) in;
                out.complete(c.request(), Singletons.DONE);
                yield phase;
            }
            case JOIN_MULTICAST -> illegal(out, ((Input.Command.JoinMulticast) in).request(), "the UD id is not ready yet", phase);
            case LEAVE_MULTICAST -> illegal(out, ((Input.Command.LeaveMulticast) in).request(), "the UD id is not ready yet", phase);
        };
    }

    private UdPhase callFailed(UdPhase phase, Input.CallFailed f, Draft d, Emitter out) {
        return switch (f.call()) {
            case Action.ResolveAddr a -> resolution.resolveAddrFailed(phase, f, d, out);
            case Action.CreateId a -> resolution.createIdFailed(phase, f, d, out);
            case Action.CreateQp a -> resolution.createQpFailed(phase, f, d, out);
            case Action.ResolveRoute a -> resolution.resolveRouteFailed(phase, f, d, out);
            case Action.Connect a when phase == UdPhase.SIDR_QUERY ->
                    fail(d, out, new Failure.NativeCallFailed("rdma_connect", f.errno()), Mode.ABORT);
            case Action.Connect a -> unexpected(out, phase, f, "no SIDR query was just issued");
            case Action.Accept a -> unexpected(out, phase, f, "accept failures arrive in READY");
            case Action.JoinMulticast a -> unexpected(out, phase, f, "joins happen in READY");
            case Action.Relisten a -> unexpected(out, phase, f, "a UD id never listens");
        };
    }

    private UdPhase deviceGoneWhileOpening(UdPhase phase, Draft d, Emitter out) {
        if (phase == UdPhase.REQUEST_RECEIVED) {
            Requests.expire(d, out, "the device was removed before a decision");
        }
        return fail(d, out, Singletons.DEVICE_REMOVED, Mode.DEVICE_GONE);
    }

    private UdPhase closeOpening(UdPhase phase, Draft d, Emitter out, Failure cause) {
        if (phase == UdPhase.REQUEST_RECEIVED) {
            Requests.reject(out, SystemReject.LISTENER_CLOSED);
        }
        return fail(d, out, cause, Mode.ABORT);
    }

    /**
     * Multicast only: the address is bound. The connect deadline stops; the future completes on
     * CallsSucceeded once the trailing CreateQp succeeded (or at once if the QP already exists).
     */
    private UdPhase ready(Draft d, Emitter out, Outcome.UdReady outcome) {
        d.timers = d.timers.cancel(TimerKind.CONNECT_DEADLINE, out);
        d.established(true);
        if (d.hasQp()) {
            out.complete(d.pendingOpen, outcome);
            d.pendingOpen = 0;
        } else {
            d.pendingOutcome(outcome);
            Opening.createQp(d, out);
        }
        return UdPhase.READY;
    }

    /** The previous step's calls succeeded: complete the open that waited for them, if any. */
    private static UdPhase callsSucceeded(UdPhase phase, Draft d, Emitter out) {
        if (d.pendingOutcome() != null && d.pendingOpen != 0) {
            out.complete(d.pendingOpen, d.pendingOutcome());
            d.pendingOpen = 0;
        }
        d.pendingOutcome(null);
        return phase;
    }

    private UdPhase ready(Input in, Input.Variant v, Draft d, Emitter out) {
        UdPhase phase = UdPhase.READY;
        return switch (v) {
            case JOIN_MULTICAST -> {
                Input.Command.JoinMulticast c = (Input.Command.JoinMulticast) in;
                if (d.groups().containsKey(c.group())) {
                    yield illegal(out, c.request(), "already joined or joining " + c.group(), phase);
                }
                d.groups().put(c.group(), new Group(c.request(), false, 0));
                out.add(new Action.JoinMulticast(c.group()));
                yield phase;
            }
            case LEAVE_MULTICAST -> {
                Input.Command.LeaveMulticast c = (Input.Command.LeaveMulticast) in;
                Group g = d.groups().remove(c.group());
                if (g == null) {
                    yield illegal(out, c.request(), "not a member of " + c.group(), phase);
                }
                if (g.request() != 0) {
                    out.fail(g.request(), Singletons.CANCELLED);
                }
                // Detach first, then complete: a caller that sends right after leave() completes
                // must not find the QP still attached to the group.
                out.add(new Action.LeaveMulticast(c.group()));
                out.complete(c.request(), Singletons.DONE);
                yield phase;
            }
            case CANCEL -> {
                for (var entry : java.util.List.copyOf(d.groups().entrySet())) {
                    if (!entry.getValue().joined()) {
                        if (entry.getValue().request() != 0) {
                            out.fail(entry.getValue().request(), Singletons.CANCELLED);
                        }
                        d.groups().remove(entry.getKey());
                        out.add(new Action.LeaveMulticast(entry.getKey()));
                    }
                }
                yield phase;
            }
            case CLOSE -> {
                Input.Command.Close c = (Input.Command.Close) in;
                d.addCloseWaiter(c.request());
                yield fail(d, out, Singletons.CLOSED, Mode.GRACEFUL);
            }
            case ABORT -> {
                Input.Command.Abort c = (Input.Command.Abort) in;
                d.addCloseWaiter(c.request());
                yield fail(d, out, Singletons.CLOSED, Mode.ABORT);
            }
            case DISCONNECT -> {
                Input.Command.Disconnect c = (Input.Command.Disconnect) in;
                out.complete(c.request(), Singletons.DONE);
                yield phase;
            }
            case CONNECT -> illegal(out, ((Input.Command.Connect) in).request(), "already started", phase);
            case ACCEPT -> illegal(out, ((Input.Command.Accept) in).request(), "no SIDR request to accept", phase);
            case REJECT -> illegal(out, ((Input.Command.Reject) in).request(), "no SIDR request to reject", phase);
            case CM_EVENT -> {
                CmEvent e = (CmEvent) in;
                yield switch (e.type()) {
                    case MULTICAST_JOIN -> joined(e, d, out);
                    case MULTICAST_ERROR -> multicastError(e, d, out);
                    case ADDR_CHANGE -> {
                        out.notice(Singletons.ADDRESS_CHANGED_NOTICE);
                        yield phase;
                    }
                    case DEVICE_REMOVAL -> {
                        out.notice(Singletons.DEVICE_REMOVED_NOTICE);
                        yield fail(d, out, Singletons.DEVICE_REMOVED, Mode.DEVICE_GONE);
                    }
                    case ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_RESPONSE, CONNECT_ERROR,
                         UNREACHABLE, REJECTED, ESTABLISHED -> unexpected(out, phase, in, "nothing is being resolved");
                    case DISCONNECTED, TIMEWAIT_EXIT -> unexpected(out, phase, in, "a UD id has no connection");
                    case CONNECT_REQUEST -> unexpected(out, phase, in, "connection request on a non-listening id");
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                yield switch (e.type()) {
                    case DEVICE_FATAL -> {
                        out.notice(Singletons.DEVICE_REMOVED_NOTICE);
                        yield fail(d, out, Singletons.DEVICE_REMOVED, Mode.DEVICE_GONE);
                    }
                    case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, SRQ_ERR, WQ_FATAL -> {
                        out.notice(new Notice.Error(new Failure.QueuePairError(e.type())));
                        yield fail(d, out, new Failure.QueuePairError(e.type()), Mode.ABORT);
                    }
                    case PORT_ERR, SRQ_LIMIT_REACHED -> {
                        out.notice(new Notice.Async(e.type()));
                        yield phase;
                    }
                    // CLIENT_REREGISTER/SM_CHANGE: ib_sa reports lost memberships as MULTICAST_ERROR; re-join there.
                    case COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, PORT_ACTIVE, LID_CHANGE, PKEY_CHANGE, SM_CHANGE,
                         QP_LAST_WQE_REACHED, CLIENT_REREGISTER, GID_CHANGE -> phase;
                };
            }
            case TIMER_EXPIRED -> {
                Input.TimerExpired t = (Input.TimerExpired) in;
                d.timers = d.timers.fired(t.kind());
                yield unexpected(out, phase, in, "no timer runs while ready");
            }
            case QUIESCED -> unexpected(out, phase, in, "nothing is being quiesced");
            case REQUEST_SETTLED -> unexpected(out, phase, in, "only a listener offers requests");
            case CALLS_SUCCEEDED -> callsSucceeded(phase, d, out);
            case CALL_FAILED -> {
                Input.CallFailed f = (Input.CallFailed) in;
                yield switch (f.call()) {
                    case Action.JoinMulticast j -> {
                        Group g = d.groups().remove(j.group());
                        if (g == null) {
                            yield unexpected(out, phase, in, "join failed for a group that is not tracked");
                        }
                        Failure failure = new Failure.NativeCallFailed("rdma_join_multicast", f.errno());
                        if (g.request() != 0) {
                            out.fail(g.request(), failure);
                        } else {
                            out.notice(new Notice.MulticastLost(j.group(), -f.errno()));
                        }
                        yield phase;
                    }
                    case Action.CreateQp a -> {
                        // The core rolled back the QP and the CQ/channel it created in that call.
                        d.hasQp(false);
                        d.hasCq(false);
                        yield openCallFailed(d, out, new Failure.NativeCallFailed("rdma_create_qp", f.errno()));
                    }
                    case Action.Accept a -> openCallFailed(d, out, new Failure.NativeCallFailed("rdma_accept", f.errno()));
                    case Action.CreateId a -> unexpected(out, phase, in, "no id is being created");
                    case Action.ResolveAddr a -> unexpected(out, phase, in, "nothing is being resolved");
                    case Action.ResolveRoute a -> unexpected(out, phase, in, "nothing is being resolved");
                    case Action.Connect a -> unexpected(out, phase, in, "no SIDR query is outstanding");
                    case Action.Relisten a -> unexpected(out, phase, in, "a UD id never listens");
                };
            }
        };
    }

    /**
     * The open's trailing call failed. If its future is still pending (it waited for the call), the
     * future fails; a SIDR server also answers the peer with a system reject.
     */
    private UdPhase openCallFailed(Draft d, Emitter out, Failure failure) {
        d.pendingOutcome(null);
        if (d.pendingOpen == 0) {
            out.notice(new Notice.Error(failure));
        }
        if (d.acceptTuning() != null) {
            Requests.reject(out, SystemReject.ACCEPT_FAILED);
        }
        return fail(d, out, failure, Mode.ABORT);
    }

    private UdPhase joined(CmEvent e, Draft d, Emitter out) {
        String group = e.params() instanceof EventParams.Ud ud ? ud.group() : "";
        Group g = d.groups().get(group);
        if (g == null || g.joined()) {
            out.unexpected(UdPhase.READY, e, g == null ? "join for a group that is not tracked" : "duplicate join");
            return UdPhase.READY;
        }
        d.groups().put(group, new Group(0, true, 0));
        if (g.request() != 0) {
            out.complete(g.request(), new Outcome.Joined(group, e.params()));
        } else {
            out.notice(new Notice.MulticastRejoined(group));
        }
        return UdPhase.READY;
    }

    /** librdmacm: the group "is no longer accessible and should be rejoined if needed" (rdma_cm(7)). */
    private UdPhase multicastError(CmEvent e, Draft d, Emitter out) {
        String group = e.params() instanceof EventParams.Ud ud ? ud.group() : "";
        Group g = d.groups().get(group);
        if (g == null) {
            out.unexpected(UdPhase.READY, e, "error for a group that is not tracked");
            return UdPhase.READY;
        }
        out.add(new Action.LeaveMulticast(group));
        if (g.request() != 0) {
            d.groups().remove(group);
            out.fail(g.request(), new Failure.MulticastError(group, e.status()));
        } else if (g.rejoins() < policy.maxRejoins()) {
            d.groups().put(group, new Group(0, false, g.rejoins() + 1));
            out.add(new Action.JoinMulticast(group));
        } else {
            d.groups().remove(group);
            out.notice(new Notice.MulticastLost(group, e.status()));
        }
        return UdPhase.READY;
    }

    private UdPhase fail(Draft d, Emitter out, Failure failure, Mode mode) {
        return UdPhase.of(Teardown.begin(d, out, policy, mode, failure));
    }

    private static UdPhase unexpected(Emitter out, UdPhase phase, Input in, String why) {
        out.unexpected(phase, in, why);
        return phase;
    }

    private static UdPhase illegal(Emitter out, long request, String why, UdPhase phase) {
        out.fail(request, new Failure.IllegalState(why));
        return phase;
    }
}
