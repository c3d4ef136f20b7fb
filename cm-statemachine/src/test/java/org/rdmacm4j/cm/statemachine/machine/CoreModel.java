package org.rdmacm4j.cm.statemachine.machine;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.TimerKind;

/**
 * What the core would see when it executes the actions, and the invariants that must hold over
 * the whole run: each event acked (bookkeeping) exactly once and before anything else, each future
 * completed exactly once, destroys only in the teardown order and only after the quiescence they
 * need (QP drained by Quiesced(QP), or its drain deadline passed, or the device gone; CQ quiesced
 * by Quiesced(CQ) before DestroyCq and before DestroyQp; no multicast group attached at
 * DestroyQp), nothing on an id after its DestroyId (or LeakId) until a CreateId/Relisten, no second
 * DestroyId, fallible calls last, timers consistent, nothing native after the terminal phase, and
 * a terminal phase that owes nothing. A violation throws AssertionError naming the step.
 */
final class CoreModel {
    private final String machine;
    private final Map<Long, Integer> cmAcks = new HashMap<>();
    private final Map<Long, Integer> asyncAcks = new HashMap<>();
    final Set<Long> futures = new HashSet<>();
    final Map<Long, Integer> completions = new HashMap<>();
    final Map<TimerKind, Long> armed = new EnumMap<>(TimerKind.class);
    boolean id = true;
    boolean qp;
    boolean cq;
    boolean cqQuiesceAsked;
    boolean cqQuiet;
    boolean cqLeaked;
    boolean cqCreatedByCreateQp;
    boolean qpDrainAsked;
    /** The QP's drain wait is over: Quiesced(QP) after DrainQp, or the drain deadline fired. */
    boolean qpDrained;
    boolean qpLeaked;
    boolean deviceGone;
    /** The id was opened from a listener's request: exactly one SettleRequest is owed. */
    boolean requestOwed;
    int settles;
    final Set<String> attached = new HashSet<>();
    boolean terminal;
    int steps;

    CoreModel(String machine) {
        this.machine = machine;
    }

    void start(List<Action> actions) {
        apply(null, actions, false, "start");
    }

    void apply(Input input, List<Action> actions, boolean terminalAfter, String where) {
        steps++;
        final int step = steps;
        java.util.function.Supplier<String> ctx = () -> machine + " step " + step + " [" + where + "] on " + input
                + ": " + actions;
        Set<Long> createdNow = new HashSet<>();
        if (input instanceof Input.Command c) {
            long r = requestOf(c);
            if (r != 0) {
                check(futures.add(r), ctx, "request number reused by the test");
                createdNow.add(r);
            }
        }
        int ackIndex = -1;
        switch (input) {
            case Input.CmEvent e -> {
                check(!cmAcks.containsKey(e.seq()), ctx, "event seq reused by the test");
                cmAcks.put(e.seq(), 0);
                if (e.type() == org.rdmacm4j.cm.statemachine.CmEventType.DEVICE_REMOVAL) {
                    deviceGone = true;
                }
                ackIndex = 0;
                check(!actions.isEmpty() && actions.getFirst() instanceof Action.AckCmEvent a && a.seq() == e.seq(),
                        ctx, "a CM event must be acked first");
            }
            case Input.AsyncEvent e -> {
                check(!asyncAcks.containsKey(e.seq()), ctx, "event seq reused by the test");
                asyncAcks.put(e.seq(), 0);
                if (e.type() == org.rdmacm4j.cm.statemachine.AsyncEventType.DEVICE_FATAL) {
                    deviceGone = true;
                }
                ackIndex = 0;
                check(!actions.isEmpty() && actions.getFirst() instanceof Action.AckAsyncEvent a && a.seq() == e.seq(),
                        ctx, "an async event must be acked first");
            }
            case Input.TimerExpired t -> {
                if (armed.containsKey(t.kind()) && armed.get(t.kind()) == t.generation()) {
                    armed.remove(t.kind());
                    if (t.kind() == TimerKind.QUIESCE_DEADLINE && cqQuiesceAsked && !cqQuiet) {
                        // The machine must leak the CQ, its channel and the QP (the poller may touch it).
                        cqLeaked = cq;
                        qpLeaked = qp;
                        cq = false;
                        qp = false;
                    }
                    if (t.kind() == TimerKind.DRAIN_DEADLINE && qpDrainAsked) {
                        qpDrained = true;
                    }
                }
            }
            case Input.Quiesced q -> {
                if (q.resource() == Input.Resource.CQ && cqQuiesceAsked) {
                    cqQuiet = true;
                }
                if (q.resource() == Input.Resource.QP && qpDrainAsked) {
                    qpDrained = true;
                }
            }
            case Input.CallFailed f -> {
                if (f.call() instanceof Action.CreateQp) {
                    // The core rolls back the QP and the CQ/channel it created in that same call.
                    qp = false;
                    if (cqCreatedByCreateQp) {
                        cq = false;
                    }
                }
                if (f.call() instanceof Action.CreateId || f.call() instanceof Action.Relisten) {
                    id = false;
                }
                if (f.call() instanceof Action.JoinMulticast j) {
                    attached.remove(j.group());
                }
            }
            case Input.Command c -> { }
            case Input.RequestSettled r -> { }
            case Input.CallsSucceeded s -> { }
            case null -> { }
        }
        boolean wasTerminal = terminal;
        boolean sawCall = false;
        for (int i = 0; i < actions.size(); i++) {
            Action a = actions.get(i);
            if (sawCall) {
                check(a instanceof Action.NativeCall, ctx, "only fallible calls may follow a fallible call: " + a);
            }
            if (wasTerminal) {
                boolean allowed = switch (a) {
                    case Action.AckCmEvent x -> true;
                    case Action.AckAsyncEvent x -> true;
                    case Action.LogUnexpected x -> true;
                    case Action.RefuseRequest x -> true;
                    case Action.CompleteFuture x -> createdNow.contains(x.request());
                    case Action.FailFuture x -> createdNow.contains(x.request());
                    default -> false;
                };
                check(allowed, ctx, "action after the terminal phase: " + a);
            }
            if (!id) {
                check(!(a instanceof Action.DestroyId), ctx, "second DestroyId");
                check(!touchesId(a), ctx, "native call on an id after its DestroyId: " + a);
            }
            switch (a) {
                case Action.NativeCall call -> {
                    sawCall = true;
                    switch (call) {
                        case Action.CreateId x -> id = true;
                        case Action.CreateQp x -> {
                            qp = true;
                            qpDrainAsked = false;
                            qpDrained = false;
                            cqCreatedByCreateQp = !cq;
                            if (!cq) {
                                cqQuiesceAsked = false;
                                cqQuiet = false;
                            }
                            cq = true;
                        }
                        case Action.Relisten x -> id = true;
                        case Action.JoinMulticast x -> attached.add(x.group());
                        default -> { }
                    }
                }
                case Action.LeaveMulticast x -> attached.remove(x.group());
                case Action.SettleRequest x -> {
                    settles++;
                    check(requestOwed && settles == 1, ctx, "SettleRequest without a request, or twice");
                }
                case Action.DrainQp x -> {
                    qpDrainAsked = true;
                    qpDrained = false;
                }
                case Action.LeakId x -> {
                    id = false;
                    qpLeaked |= qp;
                    cqLeaked |= cq;
                    qp = false;
                    cq = false;
                }
                case Action.AckCmEvent x -> {
                    check(i == ackIndex && input instanceof Input.CmEvent e && e.seq() == x.seq(), ctx,
                            "ack of an event that is not this step's input");
                    cmAcks.merge(x.seq(), 1, Integer::sum);
                }
                case Action.AckAsyncEvent x -> {
                    check(i == ackIndex && input instanceof Input.AsyncEvent e && e.seq() == x.seq(), ctx,
                            "ack of an async event that is not this step's input");
                    asyncAcks.merge(x.seq(), 1, Integer::sum);
                }
                case Action.ArmTimer x -> {
                    check(!armed.containsKey(x.kind()), ctx, "timer " + x.kind() + " armed twice without a cancel");
                    armed.put(x.kind(), x.generation());
                }
                case Action.CancelTimer x -> {
                    check(Long.valueOf(x.generation()).equals(armed.get(x.kind())), ctx,
                            "cancel of a timer that is not armed: " + x);
                    armed.remove(x.kind());
                }
                case Action.CompleteFuture x -> complete(x.request(), ctx);
                case Action.FailFuture x -> complete(x.request(), ctx);
                case Action.DestroyQp x -> {
                    check(allAcked(asyncAcks), ctx, "QP destroyed with an unacked async event");
                    check(qp, ctx, "DestroyQp of a QP that does not exist (or was leaked)");
                    check(qpDrained || deviceGone, ctx, "QP destroyed before it was drained (Quiesced(QP) or its deadline)");
                    check(!cq || cqQuiet, ctx, "QP destroyed before the poller stopped (Quiesced(CQ))");
                    check(attached.isEmpty(), ctx, "QP destroyed while attached to multicast groups " + attached);
                    qp = false;
                }
                case Action.QuiesceCq x -> {
                    cqQuiesceAsked = true;
                    cqQuiet = false;
                }
                case Action.DestroyCq x -> {
                    check(!qp, ctx, "CQ destroyed before the QP");
                    check(cqQuiet, ctx, "CQ destroyed before the poller acked its events");
                    cq = false;
                }
                case Action.DestroyCompChannel x -> check(!cq, ctx, "completion channel destroyed before its CQ");
                case Action.DestroyId x -> {
                    check(!qp, ctx, "cm_id destroyed before its QP");
                    check(allAcked(cmAcks), ctx, "cm_id destroyed with an unacked CM event");
                    id = false;
                }
                default -> { }
            }
        }
        check(allAcked(cmAcks), ctx, "a CM event is not acked exactly once: " + cmAcks);
        check(allAcked(asyncAcks), ctx, "an async event is not acked exactly once: " + asyncAcks);
        if (terminalAfter) {
            terminal = true;
            check(!id, ctx, "terminal phase but the cm_id was not destroyed");
            check(!qp, ctx, "terminal phase but the QP was neither destroyed nor knowingly leaked");
            check(!cq || cqLeaked, ctx, "terminal phase but the CQ was neither destroyed nor knowingly leaked");
            check(armed.isEmpty(), ctx, "terminal phase with armed timers " + armed);
            check(!requestOwed || settles == 1, ctx, "terminal phase but the request was never settled");
            for (long f : futures) {
                check(completions.getOrDefault(f, 0) == 1, ctx, "terminal phase but future " + f + " is still owed");
            }
        } else {
            check(!wasTerminal, ctx, "left the terminal phase");
        }
    }

    /** Actions that act on the id or an object on it (every one after DestroyId is a bug). */
    private static boolean touchesId(Action a) {
        return switch (a) {
            case Action.CreateId x -> false;
            case Action.Relisten x -> false;
            case Action.NativeCall x -> true;
            case Action.Reject x -> true;
            case Action.Notify x -> true;
            case Action.Disconnect x -> true;
            case Action.DrainQp x -> true;
            case Action.DestroyQp x -> true;
            case Action.QuiesceCq x -> true;
            case Action.DestroyCq x -> true;
            case Action.DestroyCompChannel x -> true;
            case Action.LeaveMulticast x -> true;
            case Action.LeakId x -> true;
            default -> false;
        };
    }

    private void complete(long request, java.util.function.Supplier<String> ctx) {
        check(futures.contains(request), ctx, "completion of unknown future " + request);
        int n = completions.merge(request, 1, Integer::sum);
        check(n == 1, ctx, "future " + request + " completed " + n + " times");
    }

    private static boolean allAcked(Map<Long, Integer> acks) {
        return acks.values().stream().allMatch(n -> n == 1);
    }

    static long requestOf(Input.Command c) {
        return switch (c) {
            case Input.Command.Connect x -> x.request();
            case Input.Command.Accept x -> x.request();
            case Input.Command.Reject x -> x.request();
            case Input.Command.Disconnect x -> x.request();
            case Input.Command.Close x -> x.request();
            case Input.Command.Abort x -> x.request();
            case Input.Command.Cancel x -> 0;
            case Input.Command.JoinMulticast x -> x.request();
            case Input.Command.LeaveMulticast x -> x.request();
        };
    }

    private static void check(boolean ok, java.util.function.Supplier<String> ctx, String what) {
        if (!ok) {
            throw new AssertionError(what + "\n  at " + ctx.get());
        }
    }
}
