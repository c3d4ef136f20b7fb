package org.rdmacm4j.cm.statemachine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/** The value a successful future carries. */
public sealed interface Outcome {
    /** Nothing to report (close, disconnect, reject, leave). */
    record Done() implements Outcome { }

    /** RC connection established (connect or accept); the peer's private data, decoded. */
    record Connected(PrivateData.Received peerData, EventParams params) implements Outcome {
        public Connected {
            Objects.requireNonNull(peerData, "peerData");
            Objects.requireNonNull(params, "params");
        }
    }

    /** UD id ready: address bound and, with SIDR, the peer's QPN/QKey/AH in {@code params}. */
    record UdReady(PrivateData.Received peerData, EventParams params) implements Outcome {
        public UdReady {
            Objects.requireNonNull(peerData, "peerData");
            Objects.requireNonNull(params, "params");
        }
    }

    /** Multicast group joined; {@code params} carries the group's AH, QPN and QKey. */
    record Joined(String group, EventParams params) implements Outcome {
        public Joined {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(params, "params");
        }
    }
}
