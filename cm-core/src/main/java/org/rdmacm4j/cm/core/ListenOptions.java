package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.Objects;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.ListenerPolicy;
import org.rdmacm4j.cm.statemachine.RetryPolicy;

/**
 * How {@link RdmaCm#listen} listens and how the connections it accepts behave. Checked when built.
 *
 * @param backlog            the kernel's backlog for {@code rdma_listen}
 * @param maxPendingRequests requests handed to the application and not yet accepted or rejected;
 *                           beyond it a request is refused at once with a "busy" reject that an
 *                           rdmacm4j client retries (0: unbounded)
 * @param decisionTimeout    how long the application may hold a request before it is rejected
 * @param acceptTimeout      from accept to ESTABLISHED
 * @param relisten           backoff and attempts to re-create the listening id after ADDR_CHANGE or
 *                           device loss
 * @param relistenOnAddrChange      re-create the listening id after ADDR_CHANGE
 * @param relistenOnDeviceRemoval   re-create the listening id after its device went away
 * @param tuning             RDMA read/atomic depths accepted (clamped to the request and the device)
 * @param keepalive          dead-peer detection for every connection accepted here, or null (off).
 *                           A listener option rather than an accept option: it is the service's
 *                           policy towards its clients, set once, not per request
 * @param decideOnDispatcher run the {@link RequestHandler}'s {@code onRequest} on the dispatcher
 *                           thread, inline with the CONNECT_REQUEST event, instead of on the callback
 *                           executor (off by default). For a handler that answers from what the
 *                           request carries (its private data, its addresses) and returns at once:
 *                           the decision then costs no hand-off to the callback executor and back,
 *                           which is about a third of a warm connection's setup on a busy host
 *                           (docs/benchmarks.md). The handler must not block: a blocking rdmacm4j
 *                           call ({@code listen}, {@code close}, {@code get}/{@code join} on an
 *                           rdmacm4j future) throws IllegalStateException there, and anything
 *                           slow delays every other id's events. A throwing handler still rejects
 *                           its request. The listener's other callbacks ({@code onAddressChanged},
 *                           {@code onDeviceRemoved}) stay on the callback executor. Needs a handler:
 *                           the pull form ({@link RdmaCm#listen(java.net.InetSocketAddress, ListenOptions)})
 *                           refuses it
 */
public record ListenOptions(int backlog, int maxPendingRequests, Duration decisionTimeout, Duration acceptTimeout,
                            RetryPolicy relisten, boolean relistenOnAddrChange, boolean relistenOnDeviceRemoval,
                            CmTuning tuning, KeepaliveOptions keepalive, boolean decideOnDispatcher) {
    public ListenOptions {
        checkArgument(backlog >= 1, "backlog must be at least 1, was %s", backlog);
        checkArgument(maxPendingRequests >= 0, "maxPendingRequests must be >= 0, was %s", maxPendingRequests);
        positive("decisionTimeout", decisionTimeout);
        positive("acceptTimeout", acceptTimeout);
        Objects.requireNonNull(relisten, "relisten");
        Objects.requireNonNull(tuning, "tuning");
    }

    /** Backlog 1024, 128 undecided requests, 10 s to decide, 5 s to establish, re-listen 10 times. */
    public static ListenOptions defaults() {
        ListenerPolicy p = ListenerPolicy.defaults();
        Deadlines d = Deadlines.defaults();
        return new ListenOptions(1024, p.maxPendingRequests(), d.decision(), d.accept(), p.relisten(),
                p.relistenOnAddrChange(), p.relistenOnDeviceRemoval(), CmTuning.defaults(), null, false);
    }

    public ListenOptions withBacklog(int n) {
        return new ListenOptions(n, maxPendingRequests, decisionTimeout, acceptTimeout, relisten,
                relistenOnAddrChange, relistenOnDeviceRemoval, tuning, keepalive, decideOnDispatcher);
    }

    public ListenOptions withMaxPendingRequests(int n) {
        return new ListenOptions(backlog, n, decisionTimeout, acceptTimeout, relisten, relistenOnAddrChange,
                relistenOnDeviceRemoval, tuning, keepalive, decideOnDispatcher);
    }

    public ListenOptions withDecisionTimeout(Duration t) {
        return new ListenOptions(backlog, maxPendingRequests, t, acceptTimeout, relisten, relistenOnAddrChange,
                relistenOnDeviceRemoval, tuning, keepalive, decideOnDispatcher);
    }

    public ListenOptions withAcceptTimeout(Duration t) {
        return new ListenOptions(backlog, maxPendingRequests, decisionTimeout, t, relisten, relistenOnAddrChange,
                relistenOnDeviceRemoval, tuning, keepalive, decideOnDispatcher);
    }

    public ListenOptions withTuning(CmTuning t) {
        return new ListenOptions(backlog, maxPendingRequests, decisionTimeout, acceptTimeout, relisten,
                relistenOnAddrChange, relistenOnDeviceRemoval, t, keepalive, decideOnDispatcher);
    }

    /** Probe every accepted connection every {@code period}; see {@link KeepaliveOptions}. */
    public ListenOptions withKeepalive(Duration period, int misses) {
        return withKeepalive(new KeepaliveOptions(period, misses));
    }

    /** As {@link #withKeepalive(Duration, int)}; null turns it off. */
    public ListenOptions withKeepalive(KeepaliveOptions k) {
        return new ListenOptions(backlog, maxPendingRequests, decisionTimeout, acceptTimeout, relisten,
                relistenOnAddrChange, relistenOnDeviceRemoval, tuning, k, decideOnDispatcher);
    }

    /** See {@link #decideOnDispatcher()}: the request handler runs on the dispatcher thread, and must not block. */
    public ListenOptions withDecisionOnDispatcher(boolean on) {
        return new ListenOptions(backlog, maxPendingRequests, decisionTimeout, acceptTimeout, relisten,
                relistenOnAddrChange, relistenOnDeviceRemoval, tuning, keepalive, on);
    }

    /** The listener machine's policy. */
    public ListenerPolicy listenerPolicy() {
        return new ListenerPolicy(relisten, relistenOnAddrChange, relistenOnDeviceRemoval, maxPendingRequests);
    }

    private static void positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        checkArgument(!d.isNegative() && !d.isZero(), "%s must be positive, was %s", name, d);
    }
}
