package org.rdmacm4j.cm.statemachine.machine;

import java.util.List;
import java.util.Map;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Phase;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Draft;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Group;

/**
 * The teardown engine shared by the connection machines (active, passive, UD): leave multicast
 * groups (always: a QP attached to a group cannot be destroyed), disconnect, then DISCONNECTED or
 * a deadline, then flush the QP (DrainQp, Quiesced(QP)), then stop the completion poller
 * (QuiesceCq, Quiesced(CQ)), and only then destroy QP, CQ, completion channel and cm_id, in that
 * order: a poller still running could re-post receives on a freed QP. Each wait is bounded by a
 * deadline, so a close always ends. Entered once: later close requests only join the waiters.
 */
final class Teardown {
    private Teardown() {
    }

    /** The teardown phases every connection machine has (its own enum constants of the same name). */
    enum Stage { DISCONNECTING, TIMEWAIT, DRAINING, RELEASING, CLOSED }

    enum Mode {
        /** Send DREQ and wait (bounded) for the peer's DISCONNECTED. */
        GRACEFUL,
        /** Move the QP to error (rdma_disconnect) without waiting for the peer. */
        ABORT,
        /** The device is gone: no disconnect, no flush; destroy what exists. */
        DEVICE_GONE
    }

    /**
     * The open's timers, cancelled when a teardown begins. An array walked by index: a List's
     * for-each made an iterator and three interface calls per kind in every teardown (under C1).
     */
    private static final TimerKind[] OPEN_TIMERS = {TimerKind.CONNECT_DEADLINE, TimerKind.RETRY_BACKOFF,
            TimerKind.DECISION_DEADLINE, TimerKind.ACCEPT_DEADLINE, TimerKind.CONNECT_RESULT_DEADLINE};

    /** Starts the teardown: fails what is still owed with {@code cause}, then the first step of {@code mode}. */
    static Stage begin(Draft d, Emitter out, ConnectionPolicy p, Mode mode, Failure cause) {
        if (d.pendingOpen != 0) {
            out.fail(d.pendingOpen, cause);
            d.pendingOpen = 0;
        }
        d.pendingOutcome(null);
        if (d.hasGroups()) {
            for (Map.Entry<String, Group> g : d.groups().entrySet()) {
                if (g.getValue().request() != 0) {
                    out.fail(g.getValue().request(), cause);
                }
            }
        }
        for (int i = 0; i < OPEN_TIMERS.length; i++) {
            d.timers = d.timers.cancel(OPEN_TIMERS[i], out);
        }
        // Always detach, even when the device is gone: ibv_destroy_qp of a QP still attached to a
        // multicast group fails with EBUSY, and the QP, CQ and channel would all leak.
        if (d.hasGroups()) {
            for (String group : d.groups().keySet()) {
                out.add(new Action.LeaveMulticast(group));
            }
            d.groups().clear();
        }
        return switch (mode) {
            case DEVICE_GONE -> release(d, out, p);
            case ABORT -> {
                disconnectOnce(d, out);
                yield drain(d, out, p);
            }
            case GRACEFUL -> {
                if (d.connectSent() && !d.connectionLost()) {
                    disconnectOnce(d, out);
                    d.timers = d.timers.arm(TimerKind.DISCONNECT_DEADLINE, p.deadlines().disconnectNanos(),
                            out);
                    yield Stage.DISCONNECTING;
                }
                yield drain(d, out, p);
            }
        };
    }

    private static void disconnectOnce(Draft d, Emitter out) {
        if (d.connectSent() && !d.connectionLost() && !d.disconnectSent()) {
            out.add(Singletons.DISCONNECT);
            d.disconnectSent(true);
        }
    }

    /**
     * The peer's DISCONNECTED arrived. Answers it with rdma_disconnect (once per id) if a connect was
     * sent, even if we sent our own DREQ already: when both sides disconnect at once the DREP is
     * only sent by a second rdma_disconnect (cma: ib_send_cm_dreq fails, ib_send_cm_drep runs), and
     * without it the peer's timewait runs to its deadline. Then timewait or flush.
     */
    static Stage peerGone(Draft d, Emitter out, ConnectionPolicy p) {
        answerDisconnect(d, out);
        d.connectionLost(true);
        d.timers = d.timers.cancel(TimerKind.DISCONNECT_DEADLINE, out);
        completeDisconnectWaiters(d, out);
        if (p.waitsForTimewait()) {
            d.timers = d.timers.arm(TimerKind.TIMEWAIT_DEADLINE, p.deadlines().timewaitNanos(), out);
            return Stage.TIMEWAIT;
        }
        return drain(d, out, p);
    }

    static Stage drain(Draft d, Emitter out, ConnectionPolicy p) {
        completeDisconnectWaiters(d, out);
        d.timers = d.timers.cancel(TimerKind.DISCONNECT_DEADLINE, out);
        d.timers = d.timers.cancel(TimerKind.TIMEWAIT_DEADLINE, out);
        if (d.hasQp()) {
            out.add(Singletons.DRAIN_QP);
            d.timers = d.timers.arm(TimerKind.DRAIN_DEADLINE, p.deadlines().drainNanos(), out);
            return Stage.DRAINING;
        }
        return release(d, out, p);
    }

    /** Answers a DISCONNECTED with rdma_disconnect, once per id, if a connect was sent. */
    static void answerDisconnect(Draft d, Emitter out) {
        if (d.connectSent() && !d.disconnectAnswered()) {
            out.add(Singletons.DISCONNECT);
            d.disconnectSent(true);
            d.disconnectAnswered(true);
        }
    }

    /**
     * The QP is flushed (or its drain deadline passed, or the device is gone): stop the completion
     * poller before anything is destroyed. Without a CQ (a failed CreateQp was rolled back) there is
     * nothing to wait for.
     */
    static Stage release(Draft d, Emitter out, ConnectionPolicy p) {
        completeDisconnectWaiters(d, out);
        d.timers = d.timers.cancel(TimerKind.DISCONNECT_DEADLINE, out);
        d.timers = d.timers.cancel(TimerKind.TIMEWAIT_DEADLINE, out);
        d.timers = d.timers.cancel(TimerKind.DRAIN_DEADLINE, out);
        if (d.hasCq()) {
            out.add(Singletons.QUIESCE_CQ);
            d.timers = d.timers.arm(TimerKind.QUIESCE_DEADLINE, p.deadlines().quiesceNanos(), out);
            return Stage.RELEASING;
        }
        destroyQueues(d, out, true);
        return finish(d, out);
    }

    /**
     * The poller answered (or did not in time). Quiet: destroy QP, CQ and completion channel, in that
     * order. Not quiet: ibv_destroy_cq would block the dispatcher on unacked events, and the poller
     * may still touch the QP, so the QP, CQ and channel are leaked together and logged.
     */
    static Stage cqQuiesced(Draft d, Emitter out, boolean quiet, Phase phase, Input input) {
        d.timers = d.timers.cancel(TimerKind.QUIESCE_DEADLINE, out);
        if (!quiet) {
            out.unexpected(phase, input, "CQ poller did not stop and ack its events in time; leaking the QP, CQ "
                    + "and completion channel rather than blocking in ibv_destroy_cq or freeing a QP it may touch");
        }
        destroyQueues(d, out, quiet);
        return finish(d, out);
    }

    /** Destroys (or, not quiet, forgets) QP, CQ and completion channel, in that order. */
    static void destroyQueues(Draft d, Emitter out, boolean quiet) {
        if (quiet && d.hasQp()) {
            out.add(Singletons.DESTROY_QP);
        }
        if (quiet && d.hasCq()) {
            out.add(Singletons.DESTROY_CQ);
            out.add(Singletons.DESTROY_COMP_CHANNEL);
        }
        d.hasQp(false);
        d.hasCq(false);
    }

    /**
     * Gives up on the id without destroying anything (iWARP: destroy would block the dispatcher):
     * the core forgets the id, QP, CQ and channel. Completes the waiters as a finish does.
     */
    static Stage leak(Draft d, Emitter out, String why) {
        out.add(new Action.LeakId(why));
        d.hasId(false);
        d.hasQp(false);
        d.hasCq(false);
        if (d.hasGroups()) {
            d.groups().clear();
        }
        d.connectOutstanding(false);
        d.timers = d.timers.cancelAll(out);
        completeDisconnectWaiters(d, out);
        d.completeCloseWaiters(out);
        return Stage.CLOSED;
    }

    /**
     * Turns a wait the machine started for itself (a retry's drain or quiesce) into a teardown that
     * ends in the terminal phase: fails what is owed with {@code cause}, cancels the open's timers,
     * and returns {@code stage}, whose wait (and deadline) is already outstanding.
     */
    static Stage takeOver(Draft d, Emitter out, Failure cause, Stage stage) {
        if (d.pendingOpen != 0) {
            out.fail(d.pendingOpen, cause);
            d.pendingOpen = 0;
        }
        d.pendingOutcome(null);
        for (int i = 0; i < OPEN_TIMERS.length; i++) {
            d.timers = d.timers.cancel(OPEN_TIMERS[i], out);
        }
        completeDisconnectWaiters(d, out);
        return stage;
    }

    static Stage finish(Draft d, Emitter out) {
        if (d.hasId()) {
            out.add(Singletons.DESTROY_ID);
            d.hasId(false);
        }
        d.timers = d.timers.cancelAll(out);
        completeDisconnectWaiters(d, out);
        d.completeCloseWaiters(out);
        return Stage.CLOSED;
    }

    private static void completeDisconnectWaiters(Draft d, Emitter out) {
        List<Long> waiters = d.takeDisconnectWaiters();
        for (int i = 0; i < waiters.size(); i++) {   // indexed: no iterator in every teardown step
            out.complete(waiters.get(i), Singletons.DONE);
        }
    }

    /**
     * Any input while tearing down. Late results of an abandoned attempt (ESTABLISHED, REJECTED,
     * ROUTE_RESOLVED...) and QP errors caused by the flush are expected and only acked; DEVICE_REMOVAL
     * skips the remaining waits; commands join the close or fail with Closed.
     */
    static Stage onInput(Stage stage, Phase phase, Input in, Draft d, Emitter out, ConnectionPolicy p,
                         boolean multicast) {
        return onInput(stage, phase, in, in.variant(), d, out, p, multicast);
    }

    /** As above, with {@code in}'s variant, which the machine asked for once this step (one interface call less). */
    static Stage onInput(Stage stage, Phase phase, Input in, Input.Variant v, Draft d, Emitter out, ConnectionPolicy p,
                         boolean multicast) {
        return switch (v) {
            case CM_EVENT -> {
                Input.CmEvent e = (Input.CmEvent) in;
                yield switch (e.type()) {
                    case DISCONNECTED -> stage == Stage.DISCONNECTING ? peerGone(d, out, p) : lateDisconnect(d, out, stage);
                    // The netevent path (not a DREQ timeout, which is a DISCONNECTED): no timewait follows.
                    case UNREACHABLE -> {
                        if (stage != Stage.DISCONNECTING) {
                            yield stage;
                        }
                        d.connectionLost(true);
                        yield drain(d, out, p);
                    }
                    case TIMEWAIT_EXIT -> {
                        if (!p.transport().hasTimewaitExit()) {
                            out.unexpected(phase, in, "iWARP never sends TIMEWAIT_EXIT");
                            yield stage;
                        }
                        yield switch (stage) {
                            case DISCONNECTING, TIMEWAIT -> {
                                d.connectionLost(true);
                                yield drain(d, out, p);
                            }
                            case DRAINING, RELEASING, CLOSED -> stage;
                        };
                    }
                    case DEVICE_REMOVAL -> deviceGone(stage, d, out, p);
                    case ADDR_RESOLVED, ADDR_ERROR, ROUTE_RESOLVED, ROUTE_ERROR, CONNECT_RESPONSE, CONNECT_ERROR,
                         REJECTED, ESTABLISHED, ADDR_CHANGE -> stage;
                    case MULTICAST_JOIN, MULTICAST_ERROR -> {
                        if (!multicast) {
                            out.unexpected(phase, in, "multicast event on a connected id");
                        }
                        yield stage;
                    }
                    case CONNECT_REQUEST -> {
                        out.unexpected(phase, in, "connection request on a non-listening id");
                        yield stage;
                    }
                };
            }
            case ASYNC_EVENT -> {
                Input.AsyncEvent e = (Input.AsyncEvent) in;
                yield switch (e.type()) {
                    case DEVICE_FATAL -> deviceGone(stage, d, out, p);
                    case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                         PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, SRQ_ERR, SRQ_LIMIT_REACHED,
                         QP_LAST_WQE_REACHED, CLIENT_REREGISTER, GID_CHANGE, WQ_FATAL -> stage;
                };
            }
            case TIMER_EXPIRED -> {
                Input.TimerExpired t = (Input.TimerExpired) in;
                d.timers = d.timers.fired(t.kind());
                yield switch (t.kind()) {
                    case DISCONNECT_DEADLINE, TIMEWAIT_DEADLINE -> drain(d, out, p);
                    case DRAIN_DEADLINE -> {
                        out.unexpected(phase, in, "QP did not flush in time; destroying it anyway");
                        yield release(d, out, p);
                    }
                    case QUIESCE_DEADLINE -> cqQuiesced(d, out, false, phase, in);
                    case CONNECT_DEADLINE, RETRY_BACKOFF, DECISION_DEADLINE, ACCEPT_DEADLINE, RELISTEN_BACKOFF,
                         CONNECT_RESULT_DEADLINE -> {
                        out.unexpected(phase, in, "timer should have been cancelled when the teardown began");
                        yield stage;
                    }
                };
            }
            case QUIESCED -> {
                Input.Quiesced q = (Input.Quiesced) in;
                yield switch (q.resource()) {
                    case QP -> {
                        if (stage == Stage.DRAINING) {
                            yield release(d, out, p);
                        }
                        out.unexpected(phase, in, "no QP drain is outstanding");
                        yield stage;
                    }
                    case CQ -> {
                        if (stage == Stage.RELEASING) {
                            yield cqQuiesced(d, out, true, phase, in);
                        }
                        out.unexpected(phase, in, "no CQ quiesce is outstanding");
                        yield stage;
                    }
                };
            }
            case CALL_FAILED -> {
                out.unexpected(phase, in, "no native call is outstanding while tearing down");
                yield stage;
            }
            case REQUEST_SETTLED -> {
                out.unexpected(phase, in, "only a listener offers requests");
                yield stage;
            }
            case CALLS_SUCCEEDED -> stage;
            case CONNECT, ACCEPT, REJECT, DISCONNECT, CLOSE, ABORT, CANCEL, JOIN_MULTICAST, LEAVE_MULTICAST ->
                    onCommand(stage, in, v, d, out, p);
        };
    }

    /** DISCONNECTED while flushing or releasing (e.g. after an abort): answer it (the DREP), nothing else. */
    private static Stage lateDisconnect(Draft d, Emitter out, Stage stage) {
        if (stage != Stage.CLOSED && d.hasId()) {
            answerDisconnect(d, out);
        }
        d.connectionLost(true);
        return stage;
    }

    private static Stage deviceGone(Stage stage, Draft d, Emitter out, ConnectionPolicy p) {
        return switch (stage) {
            case DISCONNECTING, TIMEWAIT, DRAINING -> release(d, out, p);
            case RELEASING, CLOSED -> stage;
        };
    }

    /** A command ({@code v} says which; no cast to Input.Command, an interface: C1's slow type check). */
    private static Stage onCommand(Stage stage, Input c, Input.Variant v, Draft d, Emitter out, ConnectionPolicy p) {
        return switch (v) {
            case CLOSE -> {
                Input.Command.Close close = (Input.Command.Close) c;
                d.addCloseWaiter(close.request());
                yield stage;
            }
            case ABORT -> {
                Input.Command.Abort abort = (Input.Command.Abort) c;
                d.addCloseWaiter(abort.request());
                yield switch (stage) {
                    case DISCONNECTING, TIMEWAIT -> drain(d, out, p);
                    case DRAINING, RELEASING, CLOSED -> stage;
                };
            }
            case DISCONNECT -> {
                Input.Command.Disconnect disconnect = (Input.Command.Disconnect) c;
                if (stage == Stage.DISCONNECTING) {
                    d.addDisconnectWaiter(disconnect.request());
                } else {
                    out.complete(disconnect.request(), Singletons.DONE);
                }
                yield stage;
            }
            case CANCEL -> stage;
            case CONNECT -> closed(out, ((Input.Command.Connect) c).request(), stage);
            case ACCEPT -> closed(out, ((Input.Command.Accept) c).request(), stage);
            case REJECT -> closed(out, ((Input.Command.Reject) c).request(), stage);
            case JOIN_MULTICAST -> closed(out, ((Input.Command.JoinMulticast) c).request(), stage);
            case LEAVE_MULTICAST -> closed(out, ((Input.Command.LeaveMulticast) c).request(), stage);
            case CM_EVENT, ASYNC_EVENT, TIMER_EXPIRED, QUIESCED, CALL_FAILED, REQUEST_SETTLED, CALLS_SUCCEEDED ->
                    throw new AssertionError("not a command: " + c);
        };
    }

    /** A command that needs a live id, while the id is going away: fails with Closed. */
    static <P> P terminalMisuse(Emitter out, long request, P phase) {
        out.fail(request, Singletons.CLOSED);
        return phase;
    }

    private static Stage closed(Emitter out, long request, Stage stage) {
        out.fail(request, Singletons.CLOSED);
        return stage;
    }

    /**
     * The terminal phase: nothing native is left. Events (which cannot really arrive once the id is
     * destroyed) are acked and logged; close-like commands complete at once, the rest fail with Closed.
     */
    static void terminal(Phase phase, Input in, Emitter out) {
        switch (in.variant()) {
            case CM_EVENT -> out.unexpected(phase, in, "event for an id that is already destroyed");
            case ASYNC_EVENT -> out.unexpected(phase, in, "async event for an id that is already destroyed");
            case TIMER_EXPIRED -> out.unexpected(phase, in, "timer of a destroyed id");
            case QUIESCED -> out.unexpected(phase, in, "nothing to quiesce: the id is destroyed");
            case REQUEST_SETTLED -> out.unexpected(phase, in, "no request is pending on a destroyed id");
            case CALLS_SUCCEEDED -> { }
            case CALL_FAILED -> out.unexpected(phase, in, "no native call is outstanding");
            case CLOSE -> out.complete(((Input.Command.Close) in).request(), Singletons.DONE);
            case ABORT -> out.complete(((Input.Command.Abort) in).request(), Singletons.DONE);
            case DISCONNECT -> out.complete(((Input.Command.Disconnect) in).request(), Singletons.DONE);
            case CANCEL -> { }
            case CONNECT -> out.fail(((Input.Command.Connect) in).request(), Singletons.CLOSED);
            case ACCEPT -> out.fail(((Input.Command.Accept) in).request(), Singletons.CLOSED);
            case REJECT -> out.fail(((Input.Command.Reject) in).request(), Singletons.CLOSED);
            case JOIN_MULTICAST -> out.fail(((Input.Command.JoinMulticast) in).request(), Singletons.CLOSED);
            case LEAVE_MULTICAST -> out.fail(((Input.Command.LeaveMulticast) in).request(), Singletons.CLOSED);
        }
    }
}
