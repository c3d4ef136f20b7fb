package org.rdmacm4j.verbs.cm;

/** {@code enum rdma_cm_event_type}; each constant carries its C value (checked against the header). */
public enum CmEventType {
    ADDR_RESOLVED(0),
    ADDR_ERROR(1),
    ROUTE_RESOLVED(2),
    ROUTE_ERROR(3),
    CONNECT_REQUEST(4),
    CONNECT_RESPONSE(5),
    CONNECT_ERROR(6),
    UNREACHABLE(7),
    REJECTED(8),
    ESTABLISHED(9),
    DISCONNECTED(10),
    DEVICE_REMOVAL(11),
    MULTICAST_JOIN(12),
    MULTICAST_ERROR(13),
    ADDR_CHANGE(14),
    TIMEWAIT_EXIT(15);

    private static final CmEventType[] BY_VALUE = values();

    private final int value;

    CmEventType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name, e.g. {@code RDMA_CM_EVENT_ADDR_RESOLVED}. */
    public String cName() { return "RDMA_CM_EVENT_" + name(); }

    /** The constant for a C value; an unknown value (a newer librdmacm) is an IllegalArgumentException. */
    public static CmEventType of(int value) {
        // Hand-written, not checkArgument with the int: see CValues (this runs for every CM event).
        if (value < 0 || value >= BY_VALUE.length || BY_VALUE[value].value != value) {
            throw new IllegalArgumentException("unknown rdma_cm_event_type " + value);
        }
        return BY_VALUE[value];
    }
}
