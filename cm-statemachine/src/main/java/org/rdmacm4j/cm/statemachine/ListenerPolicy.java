package org.rdmacm4j.cm.statemachine;

import java.util.Objects;

/**
 * What a listener does when its address or device goes away. Re-listening is what nvmet
 * ({@code repair_work}), isert and SPDK do after ADDR_CHANGE and DEVICE_REMOVAL.
 *
 * @param relisten backoff and attempt budget for re-creating the listening id
 */
public record ListenerPolicy(RetryPolicy relisten, boolean relistenOnAddrChange, boolean relistenOnDeviceRemoval) {
    public ListenerPolicy {
        Objects.requireNonNull(relisten, "relisten");
    }

    public static ListenerPolicy defaults() {
        return new ListenerPolicy(new RetryPolicy(10, java.time.Duration.ofMillis(100), java.time.Duration.ofSeconds(5),
                2, false, false, false, false), true, true);
    }
}
