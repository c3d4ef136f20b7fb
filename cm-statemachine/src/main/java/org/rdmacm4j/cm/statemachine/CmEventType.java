package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

/** {@code enum rdma_cm_event_type} from rdma/rdma_cma.h; {@link #code()} is the native value. */
public enum CmEventType {
    ADDR_RESOLVED,
    ADDR_ERROR,
    ROUTE_RESOLVED,
    ROUTE_ERROR,
    CONNECT_REQUEST,
    CONNECT_RESPONSE,
    CONNECT_ERROR,
    UNREACHABLE,
    REJECTED,
    ESTABLISHED,
    DISCONNECTED,
    DEVICE_REMOVAL,
    MULTICAST_JOIN,
    MULTICAST_ERROR,
    ADDR_CHANGE,
    TIMEWAIT_EXIT;

    /** The native {@code RDMA_CM_EVENT_*} value (the declaration order of the C enum). */
    public int code() {
        return ordinal();
    }

    /** The constants by native value. One copy: {@code values()} clones its array on every call, once per event here. */
    private static final CmEventType[] BY_CODE = values();

    /**
     * The type for a native value, or empty for a value this build does not know (a newer
     * library). The dispatcher acks such an event and logs it without feeding any machine.
     */
    public static java.util.Optional<CmEventType> find(int code) {
        return java.util.Optional.ofNullable(ofCodeOrNull(code));
    }

    /**
     * {@link #find} without its Optional: the type for a native value, or null for a value this build
     * does not know. For the dispatcher, which asks once per event (an Optional is an object per call
     * under C1, the launchers' JIT).
     */
    public static CmEventType ofCodeOrNull(int code) {
        return code < 0 || code >= BY_CODE.length ? null : BY_CODE[code];
    }

    /** The type for a native value; IllegalArgumentException for a value this build does not know. */
    public static CmEventType ofCode(int code) {
        checkArgument(code >= 0 && code < BY_CODE.length, "unknown rdma_cm_event_type %s", code);
        return BY_CODE[code];
    }
}
