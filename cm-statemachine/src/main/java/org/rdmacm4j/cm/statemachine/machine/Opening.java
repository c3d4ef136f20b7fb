package org.rdmacm4j.cm.statemachine.machine;

import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.RejectReason;
import org.rdmacm4j.cm.statemachine.TimerKind;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Draft;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.RetryFrom;

/**
 * The resolve/connect/retry steps shared by the active RC and the UD (SIDR) machines: the actions
 * they emit and what they record in the draft. Results are expressed as {@link Step}s, which
 * {@link Resolution} maps to the machine's own phase; when each step runs is decided there.
 */
final class Opening {
    private Opening() {
    }

    /** Where an opening step leaves the id. */
    enum Step { RESOLVING_ADDR, RESOLVING_ROUTE }

    /** What a REJECTED (or a refused rdma_connect) leads to. */
    enum Rejection {
        /** Not retried: the caller fails the connect. */
        FAIL,
        /** Retried, nothing to flush: the id is destroyed and the backoff runs. */
        BACKOFF,
        /** Retried: the QP is flushing (DrainQp issued) before QP, CQ, channel and id are destroyed. */
        DRAIN
    }

    static void start(Draft d, Emitter out, ConnectionPolicy p) {
        d.timers = d.timers.arm(TimerKind.CONNECT_DEADLINE, p.deadlines().connectNanos(), out);
        d.attempts = 0;
        out.add(new Action.ResolveAddr(p.deadlines().resolveAddrMillis()));
    }

    /** The open succeeded: the one connect deadline stops and the open future completes. */
    static void opened(Draft d, Emitter out, Outcome outcome) {
        d.timers = d.timers.cancel(TimerKind.CONNECT_DEADLINE, out);
        d.established(true);
        out.complete(d.pendingOpen, outcome);
        d.pendingOpen = 0;
    }

    /** ADDR_RESOLVED: create the QP (once) and resolve the route, as nvme_rdma_addr_resolved does. */
    static void resolveRoute(Draft d, Emitter out, ConnectionPolicy p) {
        createQp(d, out);
        out.add(new Action.ResolveRoute(p.deadlines().resolveRouteMillis()));
    }

    static void createQp(Draft d, Emitter out) {
        if (!d.hasQp()) {
            out.add(Singletons.CREATE_QP);
            d.hasQp(true);
            d.hasCq(true);
        }
    }

    /**
     * A retryable failure: another attempt after a backoff if the policy and the budget allow it,
     * else the caller fails the connect. Returns true if a retry was scheduled.
     */
    static boolean retry(Draft d, Emitter out, ConnectionPolicy p, boolean enabled, RetryFrom from) {
        if (!enabled || d.attempts >= p.retry().maxAttempts()) {
            return false;
        }
        d.attempts++;
        d.retryFrom(from);
        d.timers = d.timers.arm(TimerKind.RETRY_BACKOFF, p.retry().backoffNanos(d.attempts), out);
        return true;
    }

    /** RETRY_BACKOFF fired: resume where the failure left the id. */
    static Step resume(Draft d, Emitter out, ConnectionPolicy p) {
        return switch (d.retryFrom()) {
            case RESOLVE_ADDR -> {
                out.add(new Action.ResolveAddr(p.deadlines().resolveAddrMillis()));
                yield Step.RESOLVING_ADDR;
            }
            case RESOLVE_ROUTE -> {
                out.add(new Action.ResolveRoute(p.deadlines().resolveRouteMillis()));
                yield Step.RESOLVING_ROUTE;
            }
            case NEW_ID -> {
                d.hasId(true);
                out.add(Singletons.CREATE_ID);
                out.add(new Action.ResolveAddr(p.deadlines().resolveAddrMillis()));
                yield Step.RESOLVING_ADDR;
            }
        };
    }

    /**
     * REJECTED while connecting (or rdma_connect refused at once): retry with a fresh id or fail. A
     * rejected id cannot connect again, so a retry replaces the id and everything on it, in the
     * teardown order: DrainQp, Quiesced(QP), QuiesceCq, Quiesced(CQ), then DestroyQp, DestroyCq,
     * DestroyCompChannel, DestroyId (each wait bounded); the retry's CreateQp creates them afresh.
     */
    static Rejection retryRejected(Draft d, Emitter out, ConnectionPolicy p, RejectReason reason) {
        d.connectionLost(true);
        d.connectOutstanding(false);
        if (!p.retry().retries(reason) || d.attempts >= p.retry().maxAttempts()) {
            return Rejection.FAIL;
        }
        d.attempts++;
        d.retryFrom(RetryFrom.NEW_ID);
        if (d.hasQp()) {
            out.add(Singletons.DRAIN_QP);
            d.timers = d.timers.arm(TimerKind.DRAIN_DEADLINE, p.deadlines().drainNanos(), out);
            return Rejection.DRAIN;
        }
        retryReleased(d, out, p, true);
        return Rejection.BACKOFF;
    }

    /** The retry's QP is flushed (or its deadline passed): stop the poller. Returns false if there is no CQ. */
    static boolean retryDrained(Draft d, Emitter out, ConnectionPolicy p) {
        d.timers = d.timers.cancel(TimerKind.DRAIN_DEADLINE, out);
        if (d.hasCq()) {
            out.add(Singletons.QUIESCE_CQ);
            d.timers = d.timers.arm(TimerKind.QUIESCE_DEADLINE, p.deadlines().quiesceNanos(), out);
            return true;
        }
        retryReleased(d, out, p, true);
        return false;
    }

    /**
     * The poller stopped (quiet) or did not in time: destroy (or leak, see Teardown.cqQuiesced) QP, CQ
     * and channel, destroy the rejected id, and wait out the backoff.
     */
    static void retryReleased(Draft d, Emitter out, ConnectionPolicy p, boolean quiet) {
        d.timers = d.timers.cancel(TimerKind.QUIESCE_DEADLINE, out);
        Teardown.destroyQueues(d, out, quiet);
        if (d.hasId()) {
            out.add(Singletons.DESTROY_ID);
            d.hasId(false);
        }
        d.connectSent(false);
        d.connectionLost(false);
        d.disconnectSent(false);
        d.disconnectAnswered(false);
        d.timers = d.timers.arm(TimerKind.RETRY_BACKOFF, p.retry().backoffNanos(d.attempts), out);
    }

    static Failure rejected(RejectReason reason) {
        return new Failure.Rejected(reason);
    }
}
