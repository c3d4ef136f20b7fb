package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of a {@link DatagramEndpoint}.
 *
 * @param receiveBuffers receives kept posted (each MTU + 40 bytes, from the device's buffer pool)
 * @param sendBuffers    sends in flight at most (each MTU bytes, from the device's buffer pool)
 * @param maxQueuedSends datagrams that wait (copied) for a free send buffer; a send beyond fails at once
 *                       with {@link DataPathException}, an offer returns false
 * @param resolveTimeout the deadline of one {@link DatagramEndpoint#resolve} (address, route, SIDR)
 * @param backlog        the SIDR listener's backlog (0: the kernel's default)
 */
public record DatagramOptions(int receiveBuffers, int sendBuffers, Duration resolveTimeout, int backlog,
                              int maxQueuedSends) {

    public DatagramOptions {
        checkArgument(receiveBuffers >= 1 && receiveBuffers <= 16384,
                "receiveBuffers must be in [1, 16384], was %s", receiveBuffers);
        checkArgument(sendBuffers >= 1 && sendBuffers <= 16384,
                "sendBuffers must be in [1, 16384], was %s", sendBuffers);
        Objects.requireNonNull(resolveTimeout, "resolveTimeout");
        checkArgument(!resolveTimeout.isNegative() && !resolveTimeout.isZero(),
                "resolveTimeout must be positive, was %s", resolveTimeout);
        checkArgument(backlog >= 0, "backlog must not be negative, was %s", backlog);
        checkArgument(maxQueuedSends >= 0 && maxQueuedSends <= 1 << 20,
                "maxQueuedSends must be in [0, 1048576], was %s", maxQueuedSends);
    }

    /** 128 receives, 64 sends in flight, 1024 queued, 5 s to resolve, kernel backlog. */
    public static DatagramOptions defaults() {
        return new DatagramOptions(128, 64, Duration.ofSeconds(5), 0, 1024);
    }

    public DatagramOptions withReceiveBuffers(int n) {
        return new DatagramOptions(n, sendBuffers, resolveTimeout, backlog, maxQueuedSends);
    }

    public DatagramOptions withSendBuffers(int n) {
        return new DatagramOptions(receiveBuffers, n, resolveTimeout, backlog, maxQueuedSends);
    }

    public DatagramOptions withResolveTimeout(Duration d) {
        return new DatagramOptions(receiveBuffers, sendBuffers, d, backlog, maxQueuedSends);
    }

    public DatagramOptions withMaxQueuedSends(int n) {
        return new DatagramOptions(receiveBuffers, sendBuffers, resolveTimeout, backlog, n);
    }
}
