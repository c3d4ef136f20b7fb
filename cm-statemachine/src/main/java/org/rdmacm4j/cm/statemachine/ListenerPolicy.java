package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Objects;

/**
 * What a listener does when its address or device goes away, and how many undecided requests it
 * lets pile up. Re-listening is what nvmet ({@code repair_work}), isert and SPDK do after
 * ADDR_CHANGE and DEVICE_REMOVAL.
 *
 * @param relisten           backoff and attempt budget for re-creating the listening id
 * @param maxPendingRequests requests offered to the application and not yet settled; beyond it a
 *                           new request is rejected at once (as nvmet does with NVME_RDMA_CM_NO_RSC)
 *                           instead of piling up until the kernel backlog silently drops requests
 *                           ({@code ucma_connect_event_handler}). 0 means unbounded.
 */
public record ListenerPolicy(RetryPolicy relisten, boolean relistenOnAddrChange, boolean relistenOnDeviceRemoval,
                             int maxPendingRequests) {
    public ListenerPolicy {
        Objects.requireNonNull(relisten, "relisten");
        checkArgument(maxPendingRequests >= 0, "maxPendingRequests must be >= 0, was %s", maxPendingRequests);
    }

    /** Re-listen 10 times (100 ms doubling to 5 s) after address or device loss; at most 128 undecided requests. */
    public static ListenerPolicy defaults() {
        return new ListenerPolicy(new RetryPolicy(10, java.time.Duration.ofMillis(100), java.time.Duration.ofSeconds(5),
                2, false, false, false, false), true, true, 128);
    }
}
