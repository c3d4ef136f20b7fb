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

    static void start(Draft d, Emitter out, ConnectionPolicy p) {
        d.timers = d.timers.arm(TimerKind.CONNECT_DEADLINE, p.deadlines().connect().toNanos(), out.actions);
        d.attempts = 0;
        out.add(new Action.ResolveAddr((int) p.deadlines().resolveAddr().toMillis()));
    }

    /** The open succeeded: the one connect deadline stops and the open future completes. */
    static void opened(Draft d, Emitter out, Outcome outcome) {
        d.timers = d.timers.cancel(TimerKind.CONNECT_DEADLINE, out.actions);
        d.established = true;
        out.complete(d.pendingOpen, outcome);
        d.pendingOpen = 0;
    }

    /** ADDR_RESOLVED: create the QP (once) and resolve the route, as nvme_rdma_addr_resolved does. */
    static void resolveRoute(Draft d, Emitter out, ConnectionPolicy p) {
        createQp(d, out);
        out.add(new Action.ResolveRoute((int) p.deadlines().resolveRoute().toMillis()));
    }

    static void createQp(Draft d, Emitter out) {
        if (!d.hasQp) {
            out.add(new Action.CreateQp());
            d.hasQp = true;
            d.hasCq = true;
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
        d.retryFrom = from;
        if (from == RetryFrom.NEW_ID) {
            // The REJECTED event was acked first in this step, so the id can go now.
            if (d.hasQp) {
                out.add(new Action.DestroyQp());
                d.hasQp = false;
            }
            out.add(new Action.DestroyId());
            d.hasId = false;
            d.connectSent = false;
            d.connectionLost = false;
        }
        d.timers = d.timers.arm(TimerKind.RETRY_BACKOFF, p.retry().backoffNanos(d.attempts), out.actions);
        return true;
    }

    /** RETRY_BACKOFF fired: resume where the failure left the id. */
    static Step resume(Draft d, Emitter out, ConnectionPolicy p) {
        return switch (d.retryFrom) {
            case RESOLVE_ADDR -> {
                out.add(new Action.ResolveAddr((int) p.deadlines().resolveAddr().toMillis()));
                yield Step.RESOLVING_ADDR;
            }
            case RESOLVE_ROUTE -> {
                out.add(new Action.ResolveRoute((int) p.deadlines().resolveRoute().toMillis()));
                yield Step.RESOLVING_ROUTE;
            }
            case NEW_ID -> {
                d.hasId = true;
                out.add(new Action.CreateId());
                out.add(new Action.ResolveAddr((int) p.deadlines().resolveAddr().toMillis()));
                yield Step.RESOLVING_ADDR;
            }
        };
    }

    /** REJECTED while connecting: decode, then retry with a fresh id or fail. */
    static boolean retryRejected(Draft d, Emitter out, ConnectionPolicy p, RejectReason reason) {
        d.connectionLost = true;
        return retry(d, out, p, p.retry().retries(reason), RetryFrom.NEW_ID);
    }

    static Failure rejected(RejectReason reason) {
        return new Failure.Rejected(reason);
    }
}
