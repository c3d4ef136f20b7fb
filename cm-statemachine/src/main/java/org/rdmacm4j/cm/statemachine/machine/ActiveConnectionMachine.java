package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ActionList;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Input.CmEvent;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Draft;
import org.rdmacm4j.cm.statemachine.machine.Teardown.Mode;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * The active (client) side of an RC connection: resolve address, create the QP, resolve route,
 * connect, with one deadline over all of it and retries for the failures that deserve one
 * (nvme-rdma host, xprtrdma, SPDK's stale-connection retry).
 */
public final class ActiveConnectionMachine implements CmIdMachine<ActivePhase, ActiveState> {
    private final ConnectionPolicy policy;
    private final Resolution<ActivePhase> resolution;

    public ActiveConnectionMachine(ConnectionPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.resolution = new Resolution<>(policy, ActivePhase.RESOLVING_ADDR, ActivePhase.RESOLVING_ROUTE,
                ActivePhase.BACKOFF, ActivePhase::of);
    }

    public ConnectionPolicy policy() {
        return policy;
    }

    @Override
    public String name() {
        return "active";
    }

    @Override
    public Class<ActivePhase> phaseType() {
        return ActivePhase.class;
    }

    @Override
    public Transition<ActiveState> step(ActiveState state, Input input) {
        Input.Variant variant = input.variant();
        if (variant == Input.Variant.CALLS_SUCCEEDED) {
            // Every phase of an active id ignores it (each arm below, and the matrix spec, say so);
            // the core feeds one after each step with a native call, three per connect: no draft,
            // no emitter, no dispatch for them.
            return new Transition<>(state, ActionList.none());
        }
        Draft d = state.context().draft();
        Emitter out = d;   // the draft is the step's emitter too: one object, not two
        out.ackIfEvent(input, variant);
        ActivePhase next = input instanceof Input.TimerExpired t && !d.timers.isCurrent(t)
                ? state.phase()   // a cancelled or superseded timer: harmless, ignore
                : dispatch(state.phase(), input, variant, d, out);
        ConnectionContext c = d.build();
        // A step that changed nothing keeps its state object (no equal copy per step).
        return new Transition<>(next == state.phase() && c == state.context() ? state : new ActiveState(next, c),
                out.list());
    }

    /**
     * The variant {@code v} is the input's, asked once per step and handed down: under C1 each
     * {@code in.variant()} is an interface call with sixteen receiver classes (an itable stub).
     */
    private ActivePhase dispatch(ActivePhase phase, Input in, Input.Variant v, Draft d, Emitter out) {
        return switch (phase) {
            case IDLE -> idle(in, v, d, out);
            case RESOLVING_ADDR, RESOLVING_ROUTE, CONNECTING, BACKOFF -> opening(phase, in, v, d, out);
            case ESTABLISHED -> {
                Teardown.Stage stage = Live.onInput(phase, in, v, d, out, policy);
                yield stage == Live.STAY ? phase : ActivePhase.of(stage);
            }
            case DISCONNECTING -> ActivePhase.of(Teardown.onInput(Teardown.Stage.DISCONNECTING, phase, in, v, d, out, policy, false));
            case TIMEWAIT -> ActivePhase.of(Teardown.onInput(Teardown.Stage.TIMEWAIT, phase, in, v, d, out, policy, false));
            case DRAINING -> ActivePhase.of(Teardown.onInput(Teardown.Stage.DRAINING, phase, in, v, d, out, policy, false));
            case RELEASING -> ActivePhase.of(Teardown.onInput(Teardown.Stage.RELEASING, phase, in, v, d, out, policy, false));
            case CLOSED -> {
                Teardown.terminal(phase, in, out);
                yield phase;
            }
            case RETRY_DRAINING, RETRY_RELEASING -> retrying(phase, in, d, out);
            case CONNECT_ABANDONED -> abandoned(in, v, d, out);
        };
    }

    private ActivePhase idle(Input in, Input.Variant v, Draft d, Emitter out) {
        ActivePhase phase = ActivePhase.IDLE;
        return switch (v) {
            case CONNECT -> {
                Input.Command.Connect c = (Input.Command.Connect) in;
                if (c.payload().kind() != MessageKind.CONNECT_REQUEST) {
                    out.fail(c.request(), new Failure.IllegalState("connect needs CONNECT_REQUEST private data, not "
                            + c.payload().kind()));
                    yield phase;
                }
                d.pendingOpen = c.request();
                d.openPayload(c.payload());
                Opening.start(d, out, policy);
                yield ActivePhase.RESOLVING_ADDR;
            }
            case CLOSE -> {
                Input.Command.Close c = (Input.Command.Close) in;
                d.addCloseWaiter(c.request());
                yield ActivePhase.of(Teardown.finish(d, out));
            }
            case ABORT -> {
                Input.Command.Abort c = (Input.Command.Abort) in;
                d.addCloseWaiter(c.request());
                yield ActivePhase.of(Teardown.finish(d, out));
            }
            case DISCONNECT -> {
                Input.Command.Disconnect c = (Input.Command.Disconnect) in;
                out.complete(c.request(), Singletons.DONE);
                yield phase;
            }
            case CANCEL -> phase;
            case ACCEPT -> illegal(out, ((Input.Command.Accept) in).request(), "an active id cannot accept", phase);
            case REJECT -> illegal(out, ((Input.Command.Reject) in).request(), "an active id cannot reject", phase);
            case JOIN_MULTICAST -> illegal(out, ((Input.Command.JoinMulticast) in).request(), "multicast needs a UD id", phase);
            case LEAVE_MULTICAST -> illegal(out, ((Input.Command.LeaveMulticast) in).request(), "multicast needs a UD id", phase);
            case CM_EVENT -> {
                CmEvent e = (CmEvent) in;
                yield switch (e.type()) {
                    case DEVICE_REMOVAL -> ActivePhase.of(Teardown.begin(d, out, policy, Mode.DEVICE_GONE,
                            Singletons.DEVICE_REMOVED));
                    case ADDR_CHANGE -> phase;
                    case ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_REQUEST, CONNECT_RESPONSE,
                         CONNECT_ERROR, UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED, MULTICAST_JOIN,
                         MULTICAST_ERROR, TIMEWAIT_EXIT -> unexpected(out, phase, in, "nothing was started");
                };
            }
            case ASYNC_EVENT -> asyncWithoutConnection(phase, (Input.AsyncEvent) in, d, out);
            case TIMER_EXPIRED -> unexpected(out, phase, in, "no timer is armed before connect");
            case QUIESCED -> unexpected(out, phase, in, "nothing is being quiesced");
            case REQUEST_SETTLED -> unexpected(out, phase, in, "only a listener offers requests");
            case CALLS_SUCCEEDED -> phase;
            case CALL_FAILED -> unexpected(out, phase, in, "no native call is outstanding");
        };
    }

    private ActivePhase opening(ActivePhase phase, Input in, Input.Variant v, Draft d, Emitter out) {
        return switch (v) {
            case CM_EVENT -> {
                CmEvent e = (CmEvent) in;
                yield switch (e.type()) {
                    case ADDR_RESOLVED -> resolution.awaitingAddr(phase, in, out) ? resolution.resolveRoute(d, out) : phase;
                    case ADDR_ERROR -> resolution.addrError(phase, e, d, out);
                    case ROUTE_RESOLVED -> {
                        if (!resolution.awaitingRoute(phase, in, out)) {
                            yield phase;
                        }
                        out.add(new Action.Connect(d.openPayload().wire(), policy.tuning()));
                        // From here on there may be a connection that the teardown must disconnect.
                        d.connectSent(true);
                        d.connectOutstanding(true);
                        yield ActivePhase.CONNECTING;
                    }
                    case ROUTE_ERROR -> resolution.routeError(phase, e, d, out);
                    case ESTABLISHED -> {
                        if (phase != ActivePhase.CONNECTING) {
                            yield unexpected(out, phase, in, "no connect is outstanding");
                        }
                        Outcome.Connected connected = new Outcome.Connected(
                                PrivateData.decode(e.params().privateData()), e.params());
                        d.connectOutstanding(false);
                        Opening.opened(d, out, connected);
                        d.attempts = 0;
                        out.notice(new Notice.Established(connected));
                        yield ActivePhase.ESTABLISHED;
                    }
                    case REJECTED -> {
                        if (phase != ActivePhase.CONNECTING) {
                            yield unexpected(out, phase, in, "no connect is outstanding");
                        }
                        yield rejected(d, out, RejectReason.decode(policy.transport(), e.status(),
                                e.params().privateData()));
                    }
                    case CONNECT_ERROR -> {
                        if (phase != ActivePhase.CONNECTING) {
                            yield unexpected(out, phase, in, "no connect is outstanding");
                        }
                        d.connectionLost(true);
                        d.connectOutstanding(false);
                        yield fail(d, out, new Failure.ConnectError(e.status()), Mode.ABORT);
                    }
                    case UNREACHABLE -> {
                        if (phase == ActivePhase.BACKOFF) {
                            yield unexpected(out, phase, in, "nothing is in flight between attempts");
                        }
                        d.connectionLost(true);
                        d.connectOutstanding(false);
                        yield fail(d, out, new Failure.Unreachable(e.status()), Mode.ABORT);
                    }
                    // DISCONNECTED before ESTABLISHED (UCX #4719): fail the connect, answer with rdma_disconnect.
                    case DISCONNECTED -> {
                        if (phase != ActivePhase.CONNECTING) {
                            yield unexpected(out, phase, in, "no connection to disconnect");
                        }
                        d.connectOutstanding(false);
                        Teardown.answerDisconnect(d, out);
                        yield fail(d, out, new Failure.PeerDisconnected(e.status()), Mode.ABORT);
                    }
                    case DEVICE_REMOVAL -> fail(d, out, Singletons.DEVICE_REMOVED, Mode.DEVICE_GONE);
                    case ADDR_CHANGE -> phase; // the attempt goes on; if it fails, the retry policy decides
                    case CONNECT_RESPONSE -> unexpected(out, phase, in,
                            "CONNECT_RESPONSE is only for ids without a QP; this id has one");
                    case TIMEWAIT_EXIT -> unexpected(out, phase, in, "no connection in timewait");
                    case CONNECT_REQUEST -> unexpected(out, phase, in, "connection request on a non-listening id");
                    case MULTICAST_JOIN, MULTICAST_ERROR -> unexpected(out, phase, in, "multicast event on an RC id");
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                if (e.type() == org.rdmacm4j.cm.statemachine.AsyncEventType.DEVICE_FATAL) {
                    yield fail(d, out, Singletons.DEVICE_REMOVED, Mode.DEVICE_GONE);
                }
                if (e.type().breaksQueuePair() && d.hasQp()) {
                    yield giveUp(phase, d, out, new Failure.QueuePairError(e.type()));
                }
                yield asyncWithoutConnection(phase, e, d, out);
            }
            case TIMER_EXPIRED -> {
                Input.TimerExpired t = (Input.TimerExpired) in;
                d.timers = d.timers.fired(t.kind());
                yield switch (t.kind()) {
                    case CONNECT_DEADLINE -> giveUp(phase, d, out, new Failure.TimedOut(TimerKind.CONNECT_DEADLINE));
                    case RETRY_BACKOFF -> resolution.retryDue(phase, t, d, out);
                    case DECISION_DEADLINE, ACCEPT_DEADLINE, DISCONNECT_DEADLINE, TIMEWAIT_DEADLINE, DRAIN_DEADLINE,
                         QUIESCE_DEADLINE, RELISTEN_BACKOFF, CONNECT_RESULT_DEADLINE -> unexpected(out, phase, in, "timer not used while connecting");
                };
            }
            case QUIESCED -> unexpected(out, phase, in, "nothing is being quiesced");
            case REQUEST_SETTLED -> unexpected(out, phase, in, "only a listener offers requests");
            case CALLS_SUCCEEDED -> phase;
            case CALL_FAILED -> callFailed(phase, (Input.CallFailed) in, d, out);
            case CLOSE -> {
                Input.Command.Close c = (Input.Command.Close) in;
                d.addCloseWaiter(c.request());
                yield giveUp(phase, d, out, Singletons.CLOSED);
            }
            case ABORT -> {
                Input.Command.Abort c = (Input.Command.Abort) in;
                d.addCloseWaiter(c.request());
                yield giveUp(phase, d, out, Singletons.CLOSED);
            }
            case DISCONNECT -> {
                Input.Command.Disconnect c = (Input.Command.Disconnect) in;
                d.addDisconnectWaiter(c.request());
                yield giveUp(phase, d, out, Singletons.CLOSED);
            }
            case CANCEL -> giveUp(phase, d, out, Singletons.CANCELLED);
            case CONNECT -> illegal(out, ((Input.Command.Connect) in).request(), "a connect is already in progress", phase);
            case ACCEPT -> illegal(out, ((Input.Command.Accept) in).request(), "an active id cannot accept", phase);
            case REJECT -> illegal(out, ((Input.Command.Reject) in).request(), "an active id cannot reject", phase);
            case JOIN_MULTICAST -> illegal(out, ((Input.Command.JoinMulticast) in).request(), "multicast needs a UD id", phase);
            case LEAVE_MULTICAST -> illegal(out, ((Input.Command.LeaveMulticast) in).request(), "multicast needs a UD id", phase);
        };
    }

    /**
     * A call of the previous step failed. Which calls can be outstanding follows from the phase
     * that step entered; any other combination is logged.
     */
    private ActivePhase callFailed(ActivePhase phase, Input.CallFailed f, Draft d, Emitter out) {
        return switch (f.call()) {
            case Action.ResolveAddr a -> resolution.resolveAddrFailed(phase, f, d, out);
            case Action.CreateId a -> resolution.createIdFailed(phase, f, d, out);
            case Action.CreateQp a -> resolution.createQpFailed(phase, f, d, out);
            case Action.ResolveRoute a -> resolution.resolveRouteFailed(phase, f, d, out);
            case Action.Connect a when phase == ActivePhase.CONNECTING -> {
                d.connectSent(false);
                d.connectOutstanding(false);
                // siw: nobody listens on the port is a synchronous ECONNREFUSED, not a REJECTED event.
                yield policy.transport() == Transport.IWARP && f.errno() == RejectReason.ECONNREFUSED
                        ? rejected(d, out, new RejectReason.NoListener())
                        : fail(d, out, new Failure.NativeCallFailed("rdma_connect", f.errno()), Mode.ABORT);
            }
            case Action.Connect a -> unexpected(out, phase, f, "no connect was just issued");
            case Action.Accept a -> unexpected(out, phase, f, "an active id never accepts");
            case Action.JoinMulticast a -> unexpected(out, phase, f, "an RC id never joins");
            case Action.Relisten a -> unexpected(out, phase, f, "an active id never listens");
        };
    }

    /** Async events for an id that has no live connection: port/device news is harmless. */
    private ActivePhase asyncWithoutConnection(ActivePhase phase, Input.AsyncEvent e, Draft d, Emitter out) {
        return switch (e.type()) {
            case DEVICE_FATAL -> ActivePhase.of(Teardown.begin(d, out, policy, Mode.DEVICE_GONE,
                    Singletons.DEVICE_REMOVED));
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE,
                 COMM_EST, SQ_DRAINED, QP_LAST_WQE_REACHED, PATH_MIG, PATH_MIG_ERR, SRQ_LIMIT_REACHED -> phase;
            case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, SRQ_ERR, WQ_FATAL ->
                    unexpected(out, phase, e, "queue error but this id has no QP yet");
        };
    }

    /** REJECTED (or a refused rdma_connect): retry with a fresh id after draining, or fail. */
    private ActivePhase rejected(Draft d, Emitter out, RejectReason reason) {
        return switch (Opening.retryRejected(d, out, policy, reason)) {
            case DRAIN -> ActivePhase.RETRY_DRAINING;
            case BACKOFF -> ActivePhase.BACKOFF;
            case FAIL -> fail(d, out, Opening.rejected(reason), Mode.ABORT);
        };
    }

    /**
     * The application or a deadline gives up on the open. On iWARP with rdma_connect's MPA reply
     * still outstanding, iw_cm_disconnect and rdma_destroy_id would block the dispatcher until it
     * arrives, so the open future fails now and the teardown waits (bounded) for the result event.
     */
    private ActivePhase giveUp(ActivePhase phase, Draft d, Emitter out, Failure cause) {
        if (phase == ActivePhase.CONNECTING && d.connectOutstanding() && policy.transport() == Transport.IWARP) {
            if (d.pendingOpen != 0) {
                out.fail(d.pendingOpen, cause);
                d.pendingOpen = 0;
            }
            d.timers = d.timers.cancel(TimerKind.CONNECT_DEADLINE, out);
            d.timers = d.timers.arm(TimerKind.CONNECT_RESULT_DEADLINE, policy.deadlines().connectNanos(),
                    out);
            return ActivePhase.CONNECT_ABANDONED;
        }
        return fail(d, out, cause, Mode.ABORT);
    }

    /** RETRY_DRAINING / RETRY_RELEASING: replacing a rejected id, waits bounded like the teardown's. */
    private ActivePhase retrying(ActivePhase phase, Input in, Draft d, Emitter out) {
        Teardown.Stage stage = phase == ActivePhase.RETRY_DRAINING ? Teardown.Stage.DRAINING : Teardown.Stage.RELEASING;
        if (in instanceof Input.Quiesced q && q.resource() == Input.Resource.QP && stage == Teardown.Stage.DRAINING) {
            return Opening.retryDrained(d, out, policy) ? ActivePhase.RETRY_RELEASING : ActivePhase.BACKOFF;
        }
        if (in instanceof Input.Quiesced q && q.resource() == Input.Resource.CQ && stage == Teardown.Stage.RELEASING) {
            Opening.retryReleased(d, out, policy, true);
            return ActivePhase.BACKOFF;
        }
        if (in instanceof Input.TimerExpired t) {
            d.timers = d.timers.fired(t.kind());
            return switch (t.kind()) {
                case DRAIN_DEADLINE -> {
                    out.unexpected(phase, in, "QP did not flush in time; stopping the poller anyway");
                    yield Opening.retryDrained(d, out, policy) ? ActivePhase.RETRY_RELEASING : ActivePhase.BACKOFF;
                }
                case QUIESCE_DEADLINE -> {
                    out.unexpected(phase, in, "CQ poller did not stop in time; leaking the rejected id's QP, CQ and "
                            + "completion channel");
                    Opening.retryReleased(d, out, policy, false);
                    yield ActivePhase.BACKOFF;
                }
                case CONNECT_DEADLINE -> ActivePhase.of(Teardown.takeOver(d, out,
                        new Failure.TimedOut(TimerKind.CONNECT_DEADLINE), stage));
                case RETRY_BACKOFF, DECISION_DEADLINE, ACCEPT_DEADLINE, DISCONNECT_DEADLINE, TIMEWAIT_DEADLINE,
                     RELISTEN_BACKOFF, CONNECT_RESULT_DEADLINE -> unexpected(out, phase, in, "timer not used while retrying");
            };
        }
        if (in instanceof Input.Command c) {
            return switch (c) {
                case Input.Command.Close x -> {
                    d.addCloseWaiter(x.request());
                    yield ActivePhase.of(Teardown.takeOver(d, out, Singletons.CLOSED, stage));
                }
                case Input.Command.Abort x -> {
                    d.addCloseWaiter(x.request());
                    yield ActivePhase.of(Teardown.takeOver(d, out, Singletons.CLOSED, stage));
                }
                case Input.Command.Disconnect x -> {
                    d.addDisconnectWaiter(x.request());
                    yield ActivePhase.of(Teardown.takeOver(d, out, Singletons.CLOSED, stage));
                }
                case Input.Command.Cancel x -> ActivePhase.of(Teardown.takeOver(d, out, Singletons.CANCELLED, stage));
                case Input.Command.Connect x -> illegal(out, x.request(), "a connect is already in progress", phase);
                case Input.Command.Accept x -> illegal(out, x.request(), "an active id cannot accept", phase);
                case Input.Command.Reject x -> illegal(out, x.request(), "an active id cannot reject", phase);
                case Input.Command.JoinMulticast x -> illegal(out, x.request(), "multicast needs a UD id", phase);
                case Input.Command.LeaveMulticast x -> illegal(out, x.request(), "multicast needs a UD id", phase);
            };
        }
        boolean deviceGone = in instanceof CmEvent e && e.type() == org.rdmacm4j.cm.statemachine.CmEventType.DEVICE_REMOVAL
                || in instanceof Input.AsyncEvent a && a.type() == org.rdmacm4j.cm.statemachine.AsyncEventType.DEVICE_FATAL;
        if (deviceGone) {
            Teardown.takeOver(d, out, Singletons.DEVICE_REMOVED, stage);
            return ActivePhase.of(Teardown.onInput(stage, phase, in, d, out, policy, false));
        }
        // Late events of the rejected attempt, QP errors of the flush, stray inputs: as in a teardown.
        Teardown.Stage next = Teardown.onInput(stage, phase, in, d, out, policy, false);
        return next == stage ? phase : ActivePhase.of(next);
    }

    /** CONNECT_ABANDONED (iWARP): the open failed already; wait for rdma_connect's result, then tear down. */
    private ActivePhase abandoned(Input in, Input.Variant v, Draft d, Emitter out) {
        ActivePhase phase = ActivePhase.CONNECT_ABANDONED;
        return switch (v) {
            case CM_EVENT -> {
                CmEvent e = (CmEvent) in;
                yield switch (e.type()) {
                    // A connection exists now: disconnect it (no longer blocks) and flush.
                    case ESTABLISHED -> resultArrived(d, out, Mode.ABORT);
                    case DISCONNECTED -> {
                        Teardown.answerDisconnect(d, out);
                        yield resultArrived(d, out, Mode.ABORT);
                    }
                    case REJECTED, CONNECT_ERROR, UNREACHABLE -> {
                        d.connectionLost(true);
                        yield resultArrived(d, out, Mode.ABORT);
                    }
                    case DEVICE_REMOVAL -> resultArrived(d, out, Mode.DEVICE_GONE);
                    case ADDR_CHANGE, TIMEWAIT_EXIT, ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR,
                         CONNECT_RESPONSE -> phase;
                    case CONNECT_REQUEST -> unexpected(out, phase, in, "connection request on a non-listening id");
                    case MULTICAST_JOIN, MULTICAST_ERROR -> unexpected(out, phase, in, "multicast event on an RC id");
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                yield e.type() == org.rdmacm4j.cm.statemachine.AsyncEventType.DEVICE_FATAL
                        ? resultArrived(d, out, Mode.DEVICE_GONE)
                        : phase;
            }   // QP errors are expected: the QP may be failing with the connect
            case TIMER_EXPIRED -> {
                Input.TimerExpired t = (Input.TimerExpired) in;
                d.timers = d.timers.fired(t.kind());
                if (t.kind() == TimerKind.CONNECT_RESULT_DEADLINE) {
                    yield ActivePhase.of(Teardown.leak(d, out, "iWARP: no result of rdma_connect within "
                            + policy.deadlines().connect() + "; rdma_disconnect/rdma_destroy_id would block the "
                            + "dispatcher until the MPA reply, so the id, its QP, CQ and channel are leaked"));
                }
                yield unexpected(out, phase, in, "timer should have been cancelled when the connect was abandoned");
            }
            case CLOSE -> {
                Input.Command.Close c = (Input.Command.Close) in;
                d.addCloseWaiter(c.request());
                yield phase;
            }
            case ABORT -> {
                Input.Command.Abort c = (Input.Command.Abort) in;
                d.addCloseWaiter(c.request());
                yield phase;
            }
            case DISCONNECT -> {
                Input.Command.Disconnect c = (Input.Command.Disconnect) in;
                out.complete(c.request(), Singletons.DONE);
                yield phase;
            }
            case CANCEL -> phase;
            case CONNECT -> Teardown.terminalMisuse(out, ((Input.Command.Connect) in).request(), phase);
            case ACCEPT -> Teardown.terminalMisuse(out, ((Input.Command.Accept) in).request(), phase);
            case REJECT -> Teardown.terminalMisuse(out, ((Input.Command.Reject) in).request(), phase);
            case JOIN_MULTICAST -> Teardown.terminalMisuse(out, ((Input.Command.JoinMulticast) in).request(), phase);
            case LEAVE_MULTICAST -> Teardown.terminalMisuse(out, ((Input.Command.LeaveMulticast) in).request(), phase);
            case QUIESCED -> unexpected(out, phase, in, "nothing is being quiesced");
            case CALL_FAILED -> unexpected(out, phase, in, "no native call is outstanding");
            case REQUEST_SETTLED -> unexpected(out, phase, in, "only a listener offers requests");
            case CALLS_SUCCEEDED -> phase;
        };
    }

    private ActivePhase resultArrived(Draft d, Emitter out, Mode mode) {
        d.connectOutstanding(false);
        return fail(d, out, Singletons.CLOSED, mode);
    }

    private ActivePhase fail(Draft d, Emitter out, Failure failure, Mode mode) {
        return ActivePhase.of(Teardown.begin(d, out, policy, mode, failure));
    }

    private static ActivePhase unexpected(Emitter out, ActivePhase phase, Input in, String why) {
        out.unexpected(phase, in, why);
        return phase;
    }

    private static ActivePhase illegal(Emitter out, long request, String why, ActivePhase phase) {
        out.fail(request, new Failure.IllegalState(why));
        return phase;
    }
}
