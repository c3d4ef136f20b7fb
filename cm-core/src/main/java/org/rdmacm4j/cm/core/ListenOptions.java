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
 */
public record ListenOptions(int backlog, int maxPendingRequests, Duration decisionTimeout, Duration acceptTimeout,
                            RetryPolicy relisten, boolean relistenOnAddrChange, boolean relistenOnDeviceRemoval,
                            CmTuning tuning, KeepaliveOptions keepalive) {
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
                p.relistenOnAddrChange(), p.relistenOnDeviceRemoval(), CmTuning.defaults(), null);
    }

    public ListenOptions withBacklog(int n) {
        return new ListenOptions(n, maxPendingRequests, decisionTimeout, acceptTimeout, relisten,
                relistenOnAddrChange, relistenOnDeviceRemoval, tuning, keepalive);
    }

    public ListenOptions withMaxPendingRequests(int n) {
        return new ListenOptions(backlog, n, decisionTimeout, acceptTimeout, relisten, relistenOnAddrChange,
                relistenOnDeviceRemoval, tuning, keepalive);
    }

    public ListenOptions withDecisionTimeout(Duration t) {
        return new ListenOptions(backlog, maxPendingRequests, t, acceptTimeout, relisten, relistenOnAddrChange,
                relistenOnDeviceRemoval, tuning, keepalive);
    }

    public ListenOptions withAcceptTimeout(Duration t) {
        return new ListenOptions(backlog, maxPendingRequests, decisionTimeout, t, relisten, relistenOnAddrChange,
                relistenOnDeviceRemoval, tuning, keepalive);
    }

    public ListenOptions withTuning(CmTuning t) {
        return new ListenOptions(backlog, maxPendingRequests, decisionTimeout, acceptTimeout, relisten,
                relistenOnAddrChange, relistenOnDeviceRemoval, t, keepalive);
    }

    /** Probe every accepted connection every {@code period}; see {@link KeepaliveOptions}. */
    public ListenOptions withKeepalive(Duration period, int misses) {
        return withKeepalive(new KeepaliveOptions(period, misses));
    }

    /** As {@link #withKeepalive(Duration, int)}; null turns it off. */
    public ListenOptions withKeepalive(KeepaliveOptions k) {
        return new ListenOptions(backlog, maxPendingRequests, decisionTimeout, acceptTimeout, relisten,
                relistenOnAddrChange, relistenOnDeviceRemoval, tuning, k);
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
