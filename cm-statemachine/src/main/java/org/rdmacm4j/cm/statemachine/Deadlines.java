package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.Objects;

/**
 * Every wait of a machine has a bound, so no id can hang (DiSNI's connect, perftest's destroy).
 * resolveAddr/resolveRoute are passed to the kernel ({@code rdma_resolve_addr/route}'s timeout_ms,
 * which turns into ADDR_ERROR/ROUTE_ERROR -ETIMEDOUT); the others are machine timers.
 *
 * <p>A final class with the accessors, equality and string of the record it was, plus each machine
 * timer's delay in nanoseconds ({@link #connectNanos()} ...), converted once (see the fields).
 */
public final class Deadlines {
    /**
     * A nanos field's value when the Duration's {@code toNanos} overflows (past about 292 years):
     * the accessor then calls it, so it throws where it threw before, when a machine arms the timer.
     */
    private static final long OVERFLOW = Long.MIN_VALUE;

    private final Duration connect;
    private final Duration resolveAddr;
    private final Duration resolveRoute;
    private final Duration decision;
    private final Duration accept;
    private final Duration disconnect;
    private final Duration timewait;
    private final Duration drain;
    private final Duration quiesce;

    // The machine timers' delays and the kernel's resolve timeouts, converted once here: a machine
    // arms a timer in most steps of a connection, and under C1 Duration.toNanos (with the
    // Math.multiplyExact and addExact it calls) is too big to inline, two or three calls per arm.
    // Why a class and not the record this was: a record has no fields besides its components.
    private final long connectNanos;
    private final long decisionNanos;
    private final long acceptNanos;
    private final long disconnectNanos;
    private final long timewaitNanos;
    private final long drainNanos;
    private final long quiesceNanos;
    private final int resolveAddrMillis;
    private final int resolveRouteMillis;

    /**
     * The deadlines, each positive; the resolve timeouts fit in an int of milliseconds.
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
    public Deadlines(Duration connect, Duration resolveAddr, Duration resolveRoute, Duration decision,
                     Duration accept, Duration disconnect, Duration timewait, Duration drain, Duration quiesce) {
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
        this.connect = connect;
        this.resolveAddr = resolveAddr;
        this.resolveRoute = resolveRoute;
        this.decision = decision;
        this.accept = accept;
        this.disconnect = disconnect;
        this.timewait = timewait;
        this.drain = drain;
        this.quiesce = quiesce;
        this.connectNanos = nanos(connect);
        this.decisionNanos = nanos(decision);
        this.acceptNanos = nanos(accept);
        this.disconnectNanos = nanos(disconnect);
        this.timewaitNanos = nanos(timewait);
        this.drainNanos = nanos(drain);
        this.quiesceNanos = nanos(quiesce);
        this.resolveAddrMillis = (int) resolveAddr.toMillis();
        this.resolveRouteMillis = (int) resolveRoute.toMillis();
    }

    private static long nanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return OVERFLOW;
        }
    }

    public Duration connect() {
        return connect;
    }

    public Duration resolveAddr() {
        return resolveAddr;
    }

    public Duration resolveRoute() {
        return resolveRoute;
    }

    public Duration decision() {
        return decision;
    }

    public Duration accept() {
        return accept;
    }

    public Duration disconnect() {
        return disconnect;
    }

    public Duration timewait() {
        return timewait;
    }

    public Duration drain() {
        return drain;
    }

    public Duration quiesce() {
        return quiesce;
    }

    // Each is connect().toNanos() (and so on), small enough for C1 to inline; a Duration too long
    // for a long of nanos throws ArithmeticException here, as toNanos does.

    /** {@code connect().toNanos()}, converted once. */
    public long connectNanos() {
        return connectNanos != OVERFLOW ? connectNanos : connect.toNanos();
    }

    /** {@code decision().toNanos()}, converted once. */
    public long decisionNanos() {
        return decisionNanos != OVERFLOW ? decisionNanos : decision.toNanos();
    }

    /** {@code accept().toNanos()}, converted once. */
    public long acceptNanos() {
        return acceptNanos != OVERFLOW ? acceptNanos : accept.toNanos();
    }

    /** {@code disconnect().toNanos()}, converted once. */
    public long disconnectNanos() {
        return disconnectNanos != OVERFLOW ? disconnectNanos : disconnect.toNanos();
    }

    /** {@code timewait().toNanos()}, converted once. */
    public long timewaitNanos() {
        return timewaitNanos != OVERFLOW ? timewaitNanos : timewait.toNanos();
    }

    /** {@code drain().toNanos()}, converted once. */
    public long drainNanos() {
        return drainNanos != OVERFLOW ? drainNanos : drain.toNanos();
    }

    /** {@code quiesce().toNanos()}, converted once. */
    public long quiesceNanos() {
        return quiesceNanos != OVERFLOW ? quiesceNanos : quiesce.toNanos();
    }

    /** {@code (int) resolveAddr().toMillis()} (it fits: the constructor checks), converted once. */
    public int resolveAddrMillis() {
        return resolveAddrMillis;
    }

    /** {@code (int) resolveRoute().toMillis()}, converted once. */
    public int resolveRouteMillis() {
        return resolveRouteMillis;
    }

    /** As the record this was: equal when every Duration is (the converted values follow from them). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Deadlines d && connect.equals(d.connect) && resolveAddr.equals(d.resolveAddr)
                && resolveRoute.equals(d.resolveRoute) && decision.equals(d.decision) && accept.equals(d.accept)
                && disconnect.equals(d.disconnect) && timewait.equals(d.timewait) && drain.equals(d.drain)
                && quiesce.equals(d.quiesce);
    }

    @Override
    public int hashCode() {
        return Objects.hash(connect, resolveAddr, resolveRoute, decision, accept, disconnect, timewait, drain, quiesce);
    }

    /** As the record this was printed itself. */
    @Override
    public String toString() {
        return "Deadlines[connect=" + connect + ", resolveAddr=" + resolveAddr + ", resolveRoute=" + resolveRoute
                + ", decision=" + decision + ", accept=" + accept + ", disconnect=" + disconnect + ", timewait="
                + timewait + ", drain=" + drain + ", quiesce=" + quiesce + "]";
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
