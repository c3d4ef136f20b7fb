package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.Objects;

/**
 * Every wait of a machine has a bound, so no id can hang (DiSNI's connect, perftest's destroy).
 * resolveAddr/resolveRoute are passed to the kernel ({@code rdma_resolve_addr/route}'s timeout_ms,
 * which turns into ADDR_ERROR/ROUTE_ERROR -ETIMEDOUT); the others are machine timers.
 *
 * @param connect     the whole connect: resolution, retries and the CM handshake
 * @param resolveAddr kernel timeout of one address resolution
 * @param resolveRoute kernel timeout of one route resolution
 * @param decision    passive: how long the application may hold a request before it is rejected
 * @param accept      passive: rdma_accept to ESTABLISHED
 * @param disconnect  rdma_disconnect to DISCONNECTED
 * @param timewait    DISCONNECTED to TIMEWAIT_EXIT, if the policy waits for it at all
 * @param drain       DrainQp to Quiesced(QP)
 * @param quiesce     QuiesceCq to Quiesced(CQ); past it the CQ is leaked rather than destroyed
 *                    with unacked events (ibv_destroy_cq would block the dispatcher)
 */
public record Deadlines(Duration connect, Duration resolveAddr, Duration resolveRoute, Duration decision,
                        Duration accept, Duration disconnect, Duration timewait, Duration drain,
                        Duration quiesce) {
    public Deadlines {
        positive("connect", connect);
        positive("resolveAddr", resolveAddr);
        positive("resolveRoute", resolveRoute);
        positive("decision", decision);
        positive("accept", accept);
        positive("disconnect", disconnect);
        positive("timewait", timewait);
        positive("drain", drain);
        positive("quiesce", quiesce);
        checkArgument(resolveAddr.toMillis() <= Integer.MAX_VALUE && resolveRoute.toMillis() <= Integer.MAX_VALUE,
                "resolve timeouts must fit in an int of milliseconds");
    }

    /** Defaults: 10 s connect (UCX's resolve timeout), 2 s per resolution, 1 s for each teardown wait. */
    public static Deadlines defaults() {
        return DEFAULTS;
    }

    /** One instance (a record of Durations, immutable): every ConnectOptions builder starts from it. */
    private static final Deadlines DEFAULTS = new Deadlines(Duration.ofSeconds(10), Duration.ofSeconds(2),
            Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(1),
            Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1));

    private static void positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        checkArgument(!d.isNegative() && !d.isZero(), "%s deadline must be positive, was %s", name, d);
    }
}
