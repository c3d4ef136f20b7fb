package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.CmIdMachine;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Input.CmEvent;
import org.rdmacm4j.cm.statemachine.ListenerPolicy;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.Timers;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;
import org.rdmacm4j.cm.statemachine.Transition;

/**
 * A listening id. CONNECT_REQUEST is an event of the listening id in librdmacm (its ack counts
 * against the listener, and rdma_destroy_id of the listener waits for it); verbs acks it when it
 * copies it, and the listener offers the copy; the new id gets its own passive machine.
 * Nothing held means nothing can block the listener's destroy. ADDR_CHANGE and DEVICE_REMOVAL
 * re-create the listener (nvmet repair_work, isert, SPDK); established children are not touched.
 */
public final class ListenerMachine implements CmIdMachine<ListenerPhase, ListenerState> {
    private final ListenerPolicy policy;

    public ListenerMachine(ListenerPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    @Override
    public String name() {
        return "listener";
    }

    @Override
    public Class<ListenerPhase> phaseType() {
        return ListenerPhase.class;
    }

    @Override
    public Transition<ListenerState> step(ListenerState s, Input in) {
        Input.Variant v = in.variant();   // once, handed down (why: ActiveConnectionMachine#dispatch)
        Emitter out = new Emitter();
        out.ackIfEvent(in, v);
        if (in instanceof Input.TimerExpired t && !s.timers().isCurrent(t)) {
            return new Transition<>(s, out.list());
        }
        ListenerState next = switch (s.phase()) {
            case LISTENING, RELISTEN_BACKOFF -> live(s, in, v, out);
            case CLOSED -> closed(s, in, out);
        };
        return new Transition<>(next, out.list());
    }

    private ListenerState live(ListenerState s, Input in, Input.Variant v, Emitter out) {
        ListenerPhase phase = s.phase();
        return switch (v) {
            case CM_EVENT -> {
                CmEvent e = (CmEvent) in;
                yield switch (e.type()) {
                    case CONNECT_REQUEST -> {
                        ListenerState next = s.attempts() == 0 ? s : s.with(phase, s.hasId(), 0, s.timers());
                        if (phase != ListenerPhase.LISTENING) {
                            // Re-listening: the peer should come back shortly.
                            out.add(new Action.RefuseRequest(e, Requests.systemReject(SystemReject.BUSY)));
                            yield next;
                        }
                        if (policy.maxPendingRequests() > 0 && s.pending() >= policy.maxPendingRequests()) {
                            // Backpressure: answer "busy, retry later" now rather than let the kernel backlog drop
                            // requests silently.
                            out.add(new Action.RefuseRequest(e, Requests.systemReject(SystemReject.BUSY)));
                            yield next;
                        }
                        out.add(new Action.OfferRequest(e));
                        yield next.withPending(s.pending() + 1);
                    }
                    case ADDR_CHANGE -> {
                        out.notice(Singletons.ADDRESS_CHANGED_NOTICE);
                        yield policy.relistenOnAddrChange() && phase == ListenerPhase.LISTENING ? restart(s, out) : s;
                    }
                    case DEVICE_REMOVAL -> deviceLost(s, out);
                    case ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_RESPONSE, CONNECT_ERROR,
                         UNREACHABLE, REJECTED, ESTABLISHED, DISCONNECTED, MULTICAST_JOIN, MULTICAST_ERROR,
                         TIMEWAIT_EXIT -> unexpected(s, out, in, "a listening id only gets requests, "
                            + "address changes and device removal");
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                yield switch (e.type()) {
                    // The same loss as DEVICE_REMOVAL, with the same policy.
                    case DEVICE_FATAL -> deviceLost(s, out);
                    case PORT_ACTIVE -> {
                        // The port is back: do not wait out the backoff.
                        if (phase == ListenerPhase.RELISTEN_BACKOFF) {
                            Timers t = s.timers().cancel(TimerKind.RELISTEN_BACKOFF, out);
                            out.add(Singletons.RELISTEN);
                            yield s.with(ListenerPhase.LISTENING, true, s.attempts(), t);
                        }
                        yield s;
                    }
                    case PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE -> s;
                    case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                         SRQ_ERR, SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED, WQ_FATAL ->
                            unexpected(s, out, in, "a listening id has no QP, CQ or SRQ");
                };
            }
            case TIMER_EXPIRED -> {
                Input.TimerExpired t = (Input.TimerExpired) in;
                Timers timers = s.timers().fired(t.kind());
                if (t.kind() == TimerKind.RELISTEN_BACKOFF && phase == ListenerPhase.RELISTEN_BACKOFF) {
                    out.add(Singletons.RELISTEN);
                    yield s.with(ListenerPhase.LISTENING, true, s.attempts(), timers);
                }
                yield unexpected(s.with(phase, s.hasId(), s.attempts(), timers), out, in,
                        "timer not used by a listener in this phase");
            }
            case CALL_FAILED -> {
                Input.CallFailed f = (Input.CallFailed) in;
                yield switch (f.call()) {
                    case Action.Relisten r -> {
                        if (s.attempts() >= policy.relisten().maxAttempts()) {
                            out.notice(new Notice.Error(new Failure.ListenerFailed(f.errno())));
                            yield close(s.with(phase, false, s.attempts(), s.timers()), out, 0);
                        }
                        int attempt = s.attempts() + 1;
                        Timers t = s.timers().arm(TimerKind.RELISTEN_BACKOFF, policy.relisten().backoffNanos(attempt),
                                out);
                        yield s.with(ListenerPhase.RELISTEN_BACKOFF, false, attempt, t);
                    }
                    case Action.CreateId a -> unexpected(s, out, in, "a listener re-creates its id with Relisten");
                    case Action.ResolveAddr a -> unexpected(s, out, in, "a listener never resolves");
                    case Action.ResolveRoute a -> unexpected(s, out, in, "a listener never resolves");
                    case Action.CreateQp a -> unexpected(s, out, in, "a listener has no QP");
                    case Action.Connect a -> unexpected(s, out, in, "a listener never connects");
                    case Action.Accept a -> unexpected(s, out, in, "the passive id accepts, not the listener");
                    case Action.JoinMulticast a -> unexpected(s, out, in, "a listener never joins");
                };
            }
            case QUIESCED -> unexpected(s, out, in, "a listener has nothing to quiesce");
            case CALLS_SUCCEEDED -> s;
            case REQUEST_SETTLED -> s.pending() > 0
                    ? s.withPending(s.pending() - 1)
                    : unexpected(s, out, in, "no offered request is pending");
            case CLOSE -> close(s, out, ((Input.Command.Close) in).request());
            case ABORT -> close(s, out, ((Input.Command.Abort) in).request());
            case DISCONNECT -> illegal(s, out, ((Input.Command.Disconnect) in).request(), "a listener has no connection");
            case CANCEL -> s;
            case CONNECT -> illegal(s, out, ((Input.Command.Connect) in).request(), "a listener cannot connect");
            case ACCEPT -> illegal(s, out, ((Input.Command.Accept) in).request(), "accept the request's own id, not the listener");
            case REJECT -> illegal(s, out, ((Input.Command.Reject) in).request(), "reject the request's own id, not the listener");
            case JOIN_MULTICAST -> illegal(s, out, ((Input.Command.JoinMulticast) in).request(), "multicast needs a UD id");
            case LEAVE_MULTICAST -> illegal(s, out, ((Input.Command.LeaveMulticast) in).request(), "multicast needs a UD id");
        };
    }

    /** DEVICE_REMOVAL or DEVICE_FATAL: re-listen if the policy says so, else close. */
    private ListenerState deviceLost(ListenerState s, Emitter out) {
        out.notice(Singletons.DEVICE_REMOVED_NOTICE);
        if (s.phase() == ListenerPhase.RELISTEN_BACKOFF) {
            return s;
        }
        return policy.relistenOnDeviceRemoval() ? restart(s, out) : close(s, out, 0);
    }

    /** Destroy the listening id (its events are all acked) and re-create it after a short backoff. */
    private ListenerState restart(ListenerState s, Emitter out) {
        if (s.hasId()) {
            out.add(Singletons.DESTROY_ID);
        }
        Timers t = s.timers().arm(TimerKind.RELISTEN_BACKOFF, policy.relisten().backoffNanos(1), out);
        return s.with(ListenerPhase.RELISTEN_BACKOFF, false, 1, t);
    }

    private static ListenerState close(ListenerState s, Emitter out, long request) {
        if (s.hasId()) {
            out.add(Singletons.DESTROY_ID);
        }
        Timers t = s.timers().cancelAll(out);
        if (request != 0) {
            out.complete(request, Singletons.DONE);
        }
        return s.with(ListenerPhase.CLOSED, false, s.attempts(), t);
    }

    private static ListenerState closed(ListenerState s, Input in, Emitter out) {
        if (in instanceof CmEvent e && e.type() == org.rdmacm4j.cm.statemachine.CmEventType.CONNECT_REQUEST) {
            // A request that raced with the close still owns a new native id: reject and destroy it.
            out.add(new Action.RefuseRequest(e, Requests.systemReject(SystemReject.LISTENER_CLOSED)));
        }
        if (in instanceof Input.RequestSettled) {
            // Children outlive their listener; their settling is expected.
            return s.pending() > 0 ? s.withPending(s.pending() - 1) : s;
        }
        Teardown.terminal(s.phase(), in, out);
        return s;
    }

    private static ListenerState unexpected(ListenerState s, Emitter out, Input in, String why) {
        out.unexpected(s.phase(), in, why);
        return s;
    }

    private static ListenerState illegal(ListenerState s, Emitter out, long request, String why) {
        out.fail(request, new Failure.IllegalState(why));
        return s;
    }
}
