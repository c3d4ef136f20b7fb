package org.rdmacm4j.cm.statemachine;

import java.util.Objects;

/**
 * What the application's handler hears about a live id. Failures before the id is live go to its
 * future instead, so the application hears about each problem exactly once.
 */
public sealed interface Notice {
    /** The id is connected (ESTABLISHED), with what was negotiated in {@code connection}. */
    record Established(Outcome.Connected connection) implements Notice {
        public Established {
            Objects.requireNonNull(connection, "connection");
        }
    }

    /** The peer disconnected (status is non-zero for a DREQ timeout). */
    record Disconnected(int status) implements Notice { }

    /** The live id failed and is being torn down. */
    record Error(Failure failure) implements Notice {
        public Error {
            Objects.requireNonNull(failure, "failure");
        }
    }

    /** ADDR_CHANGE: the local address moved to another device or port (bonding failover, for instance). */
    record AddressChanged() implements Notice { }

    /**
     * A connection request expired before the application decided (see {@link Failure.Expired});
     * the core routes it to the application's ConnectionRequest, not to a connection handler.
     */
    record RequestExpired(Failure.Expired failure) implements Notice {
        public RequestExpired {
            Objects.requireNonNull(failure, "failure");
        }
    }

    /** DEVICE_REMOVAL: the RDMA device under the id is going away; the id is torn down. */
    record DeviceRemoved() implements Notice { }

    /** A multicast group was re-joined after MULTICAST_ERROR. */
    record MulticastRejoined(String group) implements Notice {
        public MulticastRejoined {
            Objects.requireNonNull(group, "group");
        }
    }

    /** A joined multicast group was lost for good. */
    record MulticastLost(String group, int status) implements Notice {
        public MulticastLost {
            Objects.requireNonNull(group, "group");
        }
    }

    /** Informational async events the application may care about (PATH_MIG, PORT_ERR, SRQ_LIMIT_REACHED...). */
    record Async(AsyncEventType event) implements Notice {
        public Async {
            Objects.requireNonNull(event, "event");
        }
    }
}
