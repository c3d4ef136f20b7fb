package org.rdmacm4j.cm.statemachine;

import java.util.Objects;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/**
 * Why a peer (or the fabric) refused a connection, decoded from the REJECTED event's status, the
 * transport and the private data. The IB CM reason codes are those of {@code enum ib_cm_rej_reason}
 * (kernel include/rdma/ib_cm.h); iWARP reports every refusal as {@code -ECONNREFUSED}
 * ({@code cma_iw_handler}), so there the framing header of the private data is what tells a
 * consumer reject from "nobody listens".
 */
public sealed interface RejectReason {
    /** IB_CM_REJ_TIMEOUT. */
    int IB_TIMEOUT = 4;
    /** IB_CM_REJ_INVALID_SERVICE_ID: nobody listens on that port (yet). */
    int IB_INVALID_SERVICE_ID = 8;
    /** IB_CM_REJ_STALE_CONN: the passive side still has state of an earlier connection with this QPN. */
    int IB_STALE_CONN = 10;
    /** IB_CM_REJ_CONSUMER_DEFINED: the application on the other side called rdma_reject. */
    int IB_CONSUMER_DEFINED = 28;
    /** -ECONNREFUSED, as delivered by iWARP. */
    int NEG_ECONNREFUSED = -111;
    /** -ECONNRESET: siw reports an MPA reject (the peer called rdma_reject) this way. */
    int NEG_ECONNRESET = -104;
    /** ECONNREFUSED as a synchronous errno of rdma_connect (siw: nobody listens on the port). */
    int ECONNREFUSED = 111;

    /** The peer application rejected; {@code payload} is what it passed to rdma_reject. */
    record ConsumerReject(PrivateData.Received payload) implements RejectReason {
        public ConsumerReject {
            Objects.requireNonNull(payload, "payload");
        }
    }

    /** {@link #IB_INVALID_SERVICE_ID}: nobody listens on that port (yet). */
    record NoListener() implements RejectReason { }

    /** An rdmacm4j listener is overloaded or re-listening: "busy, retry later" ({@link SystemReject#BUSY}). */
    record Busy() implements RejectReason { }

    /** An rdmacm4j listener refused the request itself, for a reason that is not worth a retry. */
    record Refused(SystemReject code) implements RejectReason {
        public Refused {
            Objects.requireNonNull(code, "code");
        }
    }

    /** {@link #IB_STALE_CONN}: the passive side still has state of an earlier connection with this QPN. */
    record StaleConnection() implements RejectReason { }

    /** {@link #IB_TIMEOUT}: the peer's CM timed out waiting for this side. */
    record Timeout() implements RejectReason { }

    /** iWARP refused and the data carries no rdmacm4j header: no listener, or a peer that does not frame. */
    record IwarpRefused(PrivateData.Received payload) implements RejectReason {
        public IwarpRefused {
            Objects.requireNonNull(payload, "payload");
        }
    }

    /** Any other status ({@code status}, as the REJECTED event gave it), with the private data that came. */
    record Other(int status, PrivateData.Received payload) implements RejectReason {
        public Other {
            Objects.requireNonNull(payload, "payload");
        }
    }

    /**
     * Decodes a REJECTED event. Never throws: status and data come from the network. A consumer
     * reject (IB 28; iWARP -ECONNREFUSED with a header, or -ECONNRESET, which is how siw reports an
     * MPA reject) carrying a {@link SystemReject} becomes {@link Busy} or {@link Refused}.
     */
    static RejectReason decode(Transport transport, int status, Bytes privateData) {
        PrivateData.Received data = PrivateData.decode(privateData);
        java.util.Optional<SystemReject> system = PrivateData.decodeSystemReject(privateData);
        return switch (transport) {
            case INFINIBAND, ROCE -> switch (status) {
                case IB_CONSUMER_DEFINED -> consumer(system, data);
                case IB_INVALID_SERVICE_ID -> new NoListener();
                case IB_STALE_CONN -> new StaleConnection();
                case IB_TIMEOUT -> new Timeout();
                default -> new Other(status, data);
            };
            case IWARP -> switch (status) {
                case NEG_ECONNREFUSED -> system.isPresent() || data.framed()
                        ? consumer(system, data) : new IwarpRefused(data);
                case NEG_ECONNRESET -> consumer(system, data);
                default -> new Other(status, data);
            };
        };
    }

    private static RejectReason consumer(java.util.Optional<SystemReject> system, PrivateData.Received data) {
        return system.<RejectReason>map(code -> code == SystemReject.BUSY ? new Busy() : new Refused(code))
                .orElseGet(() -> new ConsumerReject(data));
    }
}
