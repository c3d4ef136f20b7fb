package org.rdmacm4j.cm.statemachine.machine;

import java.util.function.Function;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Failure;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Input.CmEvent;
import org.rdmacm4j.cm.statemachine.Phase;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.Draft;
import org.rdmacm4j.cm.statemachine.machine.ConnectionContext.RetryFrom;
import org.rdmacm4j.cm.statemachine.machine.Teardown.Mode;

/**
 * Address and route resolution, in the phases of one machine (active RC or UD). Both machines
 * resolve the same way, so the rules live here once: which results count in which phase, how a
 * failed resolution retries or fails the open, and where a retry resumes. What a resolved address
 * or route leads to (a connect, a SIDR query, a bound multicast id) stays with the machine.
 */
final class Resolution<P extends Enum<P> & Phase> {
    private final ConnectionPolicy policy;
    private final P resolvingAddr;
    private final P resolvingRoute;
    private final P backoff;
    private final Function<Teardown.Stage, P> stage;

    /** Names the machine's own phases for the resolve steps, the retry wait and the teardown stages. */
    Resolution(ConnectionPolicy policy, P resolvingAddr, P resolvingRoute, P backoff,
               Function<Teardown.Stage, P> stage) {
        this.policy = policy;
        this.resolvingAddr = resolvingAddr;
        this.resolvingRoute = resolvingRoute;
        this.backoff = backoff;
        this.stage = stage;
    }

    /** True if an rdma_resolve_addr is outstanding; otherwise logs {@code in}, which has no business here. */
    boolean awaitingAddr(P phase, Input in, Emitter out) {
        return expected(phase == resolvingAddr, phase, in, out, "no address resolution is outstanding");
    }

    /** True if an rdma_resolve_route is outstanding; otherwise logs {@code in}. */
    boolean awaitingRoute(P phase, Input in, Emitter out) {
        return expected(phase == resolvingRoute, phase, in, out, "no route resolution is outstanding");
    }

    /** The address is resolved and the id needs a route: create the QP (once) and resolve it. */
    P resolveRoute(Draft d, Emitter out) {
        Opening.resolveRoute(d, out, policy);
        return resolvingRoute;
    }

    /** ADDR_ERROR: the kernel put the id back to ADDR_BOUND, so the same id can resolve again. */
    P addrError(P phase, CmEvent e, Draft d, Emitter out) {
        return awaitingAddr(phase, e, out) ? addrFailed(d, out, e.status()) : phase;
    }

    /** ROUTE_ERROR: the id is back in ADDR_RESOLVED, so the route can be resolved again. */
    P routeError(P phase, CmEvent e, Draft d, Emitter out) {
        return awaitingRoute(phase, e, out) ? routeFailed(d, out, e.status()) : phase;
    }

    // The synchronous failures below arrive right after the step that issued the call, so the phase
    // that step entered tells whether the call can be outstanding at all.

    /** rdma_resolve_addr failed at once: the same as an ADDR_ERROR. */
    P resolveAddrFailed(P phase, Input.CallFailed f, Draft d, Emitter out) {
        return phase == resolvingAddr
                ? addrFailed(d, out, -f.errno())
                : unexpected(out, phase, f, "no address resolution was just issued");
    }

    /** rdma_create_id (a retry's fresh id) failed: there is no id left to resolve with. */
    P createIdFailed(P phase, Input.CallFailed f, Draft d, Emitter out) {
        if (phase != resolvingAddr) {
            return unexpected(out, phase, f, "no id was just created");
        }
        d.hasId(false);
        return fail(d, out, new Failure.NativeCallFailed("rdma_create_id", f.errno()));
    }

    /** rdma_create_qp failed: the core rolled back what it created, so there is no QP to destroy. */
    P createQpFailed(P phase, Input.CallFailed f, Draft d, Emitter out) {
        if (phase != resolvingRoute) {
            return unexpected(out, phase, f, "no QP was just created");
        }
        // The core rolled back the QP and the CQ and channel it created in that call.
        d.hasQp(false);
        d.hasCq(false);
        return fail(d, out, new Failure.NativeCallFailed("rdma_create_qp", f.errno()));
    }

    /** rdma_resolve_route failed at once: the same as a ROUTE_ERROR. */
    P resolveRouteFailed(P phase, Input.CallFailed f, Draft d, Emitter out) {
        return phase == resolvingRoute
                ? routeFailed(d, out, -f.errno())
                : unexpected(out, phase, f, "no route resolution was just issued");
    }

    /** RETRY_BACKOFF fired: resume where the failure left the id. */
    P retryDue(P phase, Input.TimerExpired t, Draft d, Emitter out) {
        if (phase != backoff) {
            return unexpected(out, phase, t, "no retry is scheduled");
        }
        return switch (Opening.resume(d, out, policy)) {
            case RESOLVING_ADDR -> resolvingAddr;
            case RESOLVING_ROUTE -> resolvingRoute;
        };
    }

    private P addrFailed(Draft d, Emitter out, int status) {
        return retryOrFail(d, out, policy.retry().onAddrError(), RetryFrom.RESOLVE_ADDR,
                new Failure.AddressError(status));
    }

    private P routeFailed(Draft d, Emitter out, int status) {
        return retryOrFail(d, out, policy.retry().onRouteError(), RetryFrom.RESOLVE_ROUTE,
                new Failure.RouteError(status));
    }

    private P retryOrFail(Draft d, Emitter out, boolean enabled, RetryFrom from, Failure failure) {
        return Opening.retry(d, out, policy, enabled, from) ? backoff : fail(d, out, failure);
    }

    private P fail(Draft d, Emitter out, Failure failure) {
        return stage.apply(Teardown.begin(d, out, policy, Mode.ABORT, failure));
    }

    private static boolean expected(boolean expected, Phase phase, Input in, Emitter out, String why) {
        if (!expected) {
            out.unexpected(phase, in, why);
        }
        return expected;
    }

    private P unexpected(Emitter out, P phase, Input in, String why) {
        out.unexpected(phase, in, why);
        return phase;
    }
}
