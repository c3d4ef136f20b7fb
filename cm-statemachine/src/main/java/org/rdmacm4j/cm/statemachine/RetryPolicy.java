package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.Objects;

/**
 * Which connect failures are retried, how often and how far apart. ADDR_ERROR and ROUTE_ERROR are
 * retryable because the kernel puts the id back to ADDR_BOUND/ADDR_RESOLVED; REJECTED with "no
 * listener" (8, or iWARP ECONNREFUSED without a consumer payload) covers a server that is not
 * listening yet (perftest #93); "stale connection" (10) is retried by xprtrdma and SPDK. A
 * rejected id cannot connect again, so those retries use a fresh id. Backoff is deterministic
 * (initial * multiplier^(attempt-1), capped): the machine is pure and has no random source.
 *
 * @param maxAttempts retries allowed per connect (0 = never retry); the connect deadline still bounds them
 * @param onNoListener REJECTED 8, iWARP ECONNREFUSED without a header, or a synchronous ECONNREFUSED
 *                     from rdma_connect (siw)
 * @param onBusy      an rdmacm4j listener answered "busy, retry later" ({@link RejectReason.Busy})
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, int multiplier,
                          boolean onAddrError, boolean onRouteError, boolean onNoListener,
                          boolean onStaleConnection, boolean onBusy) {
    public RetryPolicy {
        checkArgument(maxAttempts >= 0, "maxAttempts must be >= 0, was %s", maxAttempts);
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        checkArgument(!initialBackoff.isNegative() && maxBackoff.compareTo(initialBackoff) >= 0,
                "need 0 <= initialBackoff <= maxBackoff, was %s, %s", initialBackoff, maxBackoff);
        checkArgument(multiplier >= 1, "multiplier must be >= 1, was %s", multiplier);
    }

    /** The policy with {@code onBusy} equal to {@code onNoListener} (the form before busy rejects existed). */
    public RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, int multiplier,
                       boolean onAddrError, boolean onRouteError, boolean onNoListener, boolean onStaleConnection) {
        this(maxAttempts, initialBackoff, maxBackoff, multiplier, onAddrError, onRouteError, onNoListener,
                onStaleConnection, onNoListener);
    }

    /** 5 retries, 10 ms doubling to 1 s, every retryable cause on (SPDK's stale retry is 5 x 10 ms). */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /** One instance (a record, immutable): every ConnectOptions builder starts from it. */
    private static final RetryPolicy DEFAULTS =
            new RetryPolicy(5, Duration.ofMillis(10), Duration.ofSeconds(1), 2, true, true, true, true, true);

    public static RetryPolicy never() {
        return new RetryPolicy(0, Duration.ZERO, Duration.ZERO, 1, false, false, false, false, false);
    }

    /** Delay before retry number {@code attempt} (1-based). */
    public long backoffNanos(int attempt) {
        long delay = initialBackoff.toNanos();
        long cap = maxBackoff.toNanos();
        for (int i = 1; i < attempt && delay < cap; i++) {
            delay = delay > cap / multiplier ? cap : delay * multiplier;
        }
        return Math.min(delay, cap);
    }

    /** Whether a REJECTED with this reason is worth another attempt under this policy. */
    public boolean retries(RejectReason reason) {
        return switch (reason) {
            case RejectReason.NoListener n -> onNoListener;
            case RejectReason.IwarpRefused r -> onNoListener;
            case RejectReason.StaleConnection s -> onStaleConnection;
            case RejectReason.Busy b -> onBusy;
            case RejectReason.Refused r -> false;
            case RejectReason.ConsumerReject c -> false;
            case RejectReason.Timeout t -> false;
            case RejectReason.Other o -> false;
        };
    }
}
