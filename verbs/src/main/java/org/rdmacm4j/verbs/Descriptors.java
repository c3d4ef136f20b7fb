package org.rdmacm4j.verbs;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import org.rdmacm4j.verbs.internal.Libc;

/**
 * Helpers for the file descriptors the event channels expose (rdma_cm event channel,
 * completion channel, device async fd). Any thread.
 */
public final class Descriptors {
    private Descriptors() { }

    /**
     * Waits with poll(2) until {@code fd} is readable or the timeout passes; true if readable.
     * This blocks the calling thread for at most {@code timeout}.
     */
    public static boolean awaitReadable(int fd, Duration timeout) {
        checkArgument(fd >= 0, "fd %s", fd);
        checkArgument(!timeout.isNegative(), "negative timeout %s", timeout);
        return Libc.awaitReadable(fd, timeout.toMillis());
    }

    /** True if O_NONBLOCK is set on {@code fd}. */
    public static boolean isNonBlocking(int fd) {
        return Libc.isNonBlocking(fd);
    }
}
