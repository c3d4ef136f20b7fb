package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.Objects;

/**
 * What the dispatcher does when a joined group reports MULTICAST_ERROR (librdmacm: the group "is no
 * longer accessible and should be rejoined if needed"): leave it, wait a backoff, join it again, up
 * to {@code maxAttempts} times in a row. A successful re-join starts the count again. The backoff
 * doubles from {@code initialBackoff} to at most {@code maxBackoff}.
 *
 * @param maxAttempts    re-joins in a row before the membership is given up (0: never re-join)
 * @param initialBackoff the wait before the first re-join
 * @param maxBackoff     the longest wait between two re-joins
 */
public record RejoinPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    public RejoinPolicy {
        checkArgument(maxAttempts >= 0 && maxAttempts <= 1000, "maxAttempts must be in [0, 1000], was %s", maxAttempts);
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        checkArgument(!initialBackoff.isNegative() && maxBackoff.compareTo(initialBackoff) >= 0
                        && maxBackoff.compareTo(Duration.ofHours(1)) <= 0,
                "need 0 <= initialBackoff <= maxBackoff <= 1 h, was %s, %s", initialBackoff, maxBackoff);
    }

    /** 3 re-joins, 100 ms doubling to 2 s. */
    public static RejoinPolicy defaults() {
        return new RejoinPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(2));
    }

    /** The first MULTICAST_ERROR ends the membership. */
    public static RejoinPolicy never() {
        return new RejoinPolicy(0, Duration.ZERO, Duration.ZERO);
    }

    /** The wait before re-join number {@code attempt} (1-based): initial * 2^(attempt-1), capped. */
    public Duration backoff(int attempt) {
        checkArgument(attempt >= 1, "attempt is 1-based, was %s", attempt);
        Duration d = initialBackoff;
        for (int i = 1; i < attempt && d.compareTo(maxBackoff) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }
}
