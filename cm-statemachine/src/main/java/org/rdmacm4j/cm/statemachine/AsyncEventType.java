package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * {@code enum ibv_event_type} from infiniband/verbs.h; {@link #code()} is the native value. The
 * core routes an async event to the machine of the id that owns the QP, CQ or SRQ it names, and
 * port/device events to every id on that port/device.
 */
public enum AsyncEventType {
    CQ_ERR,
    QP_FATAL,
    QP_REQ_ERR,
    QP_ACCESS_ERR,
    COMM_EST,
    SQ_DRAINED,
    PATH_MIG,
    PATH_MIG_ERR,
    DEVICE_FATAL,
    PORT_ACTIVE,
    PORT_ERR,
    LID_CHANGE,
    PKEY_CHANGE,
    SM_CHANGE,
    SRQ_ERR,
    SRQ_LIMIT_REACHED,
    QP_LAST_WQE_REACHED,
    CLIENT_REREGISTER,
    GID_CHANGE,
    WQ_FATAL;

    /** The native {@code IBV_EVENT_*} value (the declaration order of the C enum). */
    public int code() {
        return ordinal();
    }

    /** The constants by native value. One copy: {@code values()} clones its array on every call, once per event here. */
    private static final AsyncEventType[] BY_CODE = values();

    /**
     * The type for a native value, or empty for a value this build does not know (a newer
     * library). The dispatcher acks such an event and logs it without feeding any machine.
     */
    public static java.util.Optional<AsyncEventType> find(int code) {
        return code < 0 || code >= BY_CODE.length ? java.util.Optional.empty() : java.util.Optional.of(BY_CODE[code]);
    }

    /** The type for a native value; IllegalArgumentException for a value this build does not know. */
    public static AsyncEventType ofCode(int code) {
        checkArgument(code >= 0 && code < BY_CODE.length, "unknown ibv_event_type %s", code);
        return BY_CODE[code];
    }

    /** The QP (or the CQ/SRQ/WQ that feeds it) can no longer carry traffic. */
    public boolean breaksQueuePair() {
        return switch (this) {
            case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, SRQ_ERR, WQ_FATAL -> true;
            case COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, DEVICE_FATAL, PORT_ACTIVE, PORT_ERR,
                 LID_CHANGE, PKEY_CHANGE, SM_CHANGE, SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED,
                 CLIENT_REREGISTER, GID_CHANGE -> false;
        };
    }
}
