package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.Objects;

/**
 * Dead-peer detection for an idle RC connection (opt-in). An idle RC queue pair sends nothing, so
 * it cannot notice a peer that vanished without a word (host death, a cut link): every
 * {@code period} rdmacm4j posts a zero-length RDMA WRITE on the connection's queue pair. It needs
 * no receive and no cooperation from the peer's software, only remote-write access on its QP,
 * which rdma_cm grants every RC QP it sets up (so plain librdmacm peers should answer too; the
 * guest tests cover rdmacm4j peers so far), and it leaves the message channel's credits alone. The peer's transport acknowledges
 * it; if it is still unanswered after {@code misses} further periods, the connection fails with a
 * {@link PeerUnresponsiveException} (to {@code onError} and, as the cause, to pending operations)
 * and is aborted. The queue pair may give up first: its own retries of the probe end in
 * {@code IBV_WC_RETRY_EXC_ERR}, also a {@code PeerUnresponsiveException}.
 *
 * <p>So a dead peer is noticed within {@code (misses + 1) * period + 200 ms} (the first probe after
 * the death, then {@code misses} unanswered periods, then the dispatcher's grace on the verdict), or within the queue pair's transport retry time,
 * whichever is shorter. Choose {@code period * misses} well above the longest time one of your
 * own transfers can occupy the send queue, since a probe completes only after the work posted
 * before it.
 *
 * @param period how often a probe is posted, from 10 ms to 1 hour
 * @param misses how many periods a probe may stay unanswered before the peer is declared dead, 1..1000
 */
public record KeepaliveOptions(Duration period, int misses) {
    public static final Duration MIN_PERIOD = Duration.ofMillis(10);
    public static final Duration MAX_PERIOD = Duration.ofHours(1);
    public static final int MAX_MISSES = 1000;

    public KeepaliveOptions {
        Objects.requireNonNull(period, "period");
        checkArgument(period.compareTo(MIN_PERIOD) >= 0 && period.compareTo(MAX_PERIOD) <= 0,
                "keepalive period must be between %s and %s, was %s", MIN_PERIOD, MAX_PERIOD, period);
        checkArgument(misses >= 1 && misses <= MAX_MISSES,
                "keepalive misses must be between 1 and %s, was %s", MAX_MISSES, misses);
    }

    /**
     * The dispatcher's grace before it acts on a verdict (the one it gives an unexplained flush):
     * a DISCONNECTED already on its way then ends the connection instead of "unresponsive".
     */
    static final Duration VERDICT_GRACE = Duration.ofMillis(200);

    /**
     * The longest time from a peer's death to the connection's failure, by the keepalive alone:
     * {@code (misses + 1) * period}, plus the dispatcher's 200 ms grace on the verdict.
     */
    public Duration worstDetection() {
        return period.multipliedBy(misses + 1L).plus(VERDICT_GRACE);
    }
}
