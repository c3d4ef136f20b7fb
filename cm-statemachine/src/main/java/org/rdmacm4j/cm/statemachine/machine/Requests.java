package org.rdmacm4j.cm.statemachine.machine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Draft;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/**
 * What the passive machine and the UD server machine share about the request they were opened
 * from: what they remember of it, the accept's clamped tuning, the one SettleRequest, and expiry.
 */
final class Requests {
    private Requests() {
    }

    /**
     * A fresh id opened from {@code request}: remembers its data and params, arms the decision
     * deadline. The draft is the open's emitter too (its actions).
     */
    static Draft open(Input.CmEvent request, CmTuning deviceLimits, ConnectionPolicy p) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(deviceLimits, "deviceLimits");
        Draft d = ConnectionContext.fresh().draft();
        d.request(PrivateData.decode(request.params().privateData()), request.params(),
                acceptTuning(p.tuning(), request.params(), deviceLimits));
        d.settleOwed(true);
        d.timers = d.timers.arm(TimerKind.DECISION_DEADLINE, p.deadlines().decisionNanos(), d);
        return d;
    }

    /**
     * The accept's tuning: responder resources and initiator depth each min(policy, request, device),
     * retry counts from the policy. The kernel reports the request's values from the local point of
     * view (its {@code responder_resources} is the peer's initiator depth), and rdma_accept(3) wants
     * initiator_depth no larger than the request's. A request that reports 0 initiator depth (or no
     * conn params at all) gets 0; a request that reports 0 responder resources means the peer will
     * issue no reads, so offering min(policy, device) costs nothing and is kept.
     */
    static CmTuning acceptTuning(CmTuning policy, EventParams request, CmTuning device) {
        int reqResponder = request instanceof EventParams.Conn c ? c.responderResources() : 0;
        int reqInitiator = request instanceof EventParams.Conn c ? c.initiatorDepth() : 0;
        int responder = Math.min(policy.responderResources(), device.responderResources());
        if (reqResponder > 0) {
            responder = Math.min(responder, reqResponder);
        }
        int initiator = Math.min(Math.min(policy.initiatorDepth(), device.initiatorDepth()), Math.max(0, reqInitiator));
        responder = Math.min(255, responder);
        initiator = Math.min(255, initiator);
        if (responder == policy.responderResources() && initiator == policy.initiatorDepth()) {
            return policy;   // nothing clamped (the usual case): the policy's own value, not an equal copy
        }
        return new CmTuning(responder, initiator, policy.retryCount(), policy.rnrRetryCount());
    }

    /**
     * The request left REQUEST_RECEIVED in this step: emits the one SettleRequest, placed before the
     * step's first fallible call (so that a failing call cannot skip it). Small enough for C1 to
     * inline into the passive and UD steps, which call it on every step past REQUEST_RECEIVED: it is
     * owed at most once per id, so nearly every call is this test alone.
     */
    static void settle(Draft d, Emitter out) {
        if (d.settleOwed()) {
            settleNow(d, out);
        }
    }

    private static void settleNow(Draft d, Emitter out) {
        d.settleOwed(false);
        int at = out.size();
        for (int i = 0; i < out.size(); i++) {
            // Not instanceof: see Action.Variant#nativeCall (an interface type check is slow under C1).
            if (out.get(i).variant().nativeCall()) {
                at = i;
                break;
            }
        }
        out.add(at, Singletons.SETTLE_REQUEST);
    }

    /** The request died before the application decided: tell its ConnectionRequest, remember why. */
    static void expire(Draft d, Emitter out, String why) {
        d.expired(new Failure.Expired(why));
        out.notice(new Notice.RequestExpired(d.expired()));
    }

    /** rdma_reject with a system reason (the library's own reject, not the application's). */
    static void reject(Emitter out, SystemReject reason) {
        out.add(new Action.Reject(systemReject(reason)));
    }

    static Bytes systemReject(SystemReject reason) {
        return PrivateData.systemReject(reason).wire();
    }

    /**
     * A command on a CLOSED request machine whose request expired: accept, reject and close fail
     * with the expiry. Returns false if the command is not one of those (or nothing expired).
     */
    static boolean failExpired(Draft d, Input in, Emitter out) {
        if (d.expired() == null) {
            return false;
        }
        long request = switch (in.variant()) {
            case ACCEPT -> ((Input.Command.Accept) in).request();
            case REJECT -> ((Input.Command.Reject) in).request();
            case CLOSE -> ((Input.Command.Close) in).request();
            case ABORT -> 0;
            case DISCONNECT -> 0;
            case CANCEL -> 0;
            case CONNECT -> 0;
            case JOIN_MULTICAST -> 0;
            case LEAVE_MULTICAST -> 0;
            case CM_EVENT -> 0;
            case ASYNC_EVENT -> 0;
            case TIMER_EXPIRED -> 0;
            case QUIESCED -> 0;
            case CALL_FAILED -> 0;
            case REQUEST_SETTLED -> 0;
            case CALLS_SUCCEEDED -> 0;
        };
        if (request == 0) {
            return false;
        }
        out.fail(request, d.expired());
        return true;
    }
}
