package org.rdmacm4j.verbs.ibv;

import org.rdmacm4j.verbs.internal.CValues;

/** {@code enum ibv_event_type}: an asynchronous event of a device, port, QP, CQ, SRQ or WQ. Each constant carries its C value, checked against the header by the layout test. */
public enum AsyncEventType {
    CQ_ERR(0),
    QP_FATAL(1),
    QP_REQ_ERR(2),
    QP_ACCESS_ERR(3),
    COMM_EST(4),
    SQ_DRAINED(5),
    PATH_MIG(6),
    PATH_MIG_ERR(7),
    DEVICE_FATAL(8),
    PORT_ACTIVE(9),
    PORT_ERR(10),
    LID_CHANGE(11),
    PKEY_CHANGE(12),
    SM_CHANGE(13),
    SRQ_ERR(14),
    SRQ_LIMIT_REACHED(15),
    QP_LAST_WQE_REACHED(16),
    CLIENT_REREGISTER(17),
    GID_CHANGE(18),
    WQ_FATAL(19);

    private static final AsyncEventType[] BY_VALUE = new AsyncEventType[20];

    static {
        for (AsyncEventType c : values()) {
            BY_VALUE[c.value] = c;
        }
    }

    private final int value;

    AsyncEventType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name. */
    public String cName() { return "IBV_EVENT_" + name(); }

    /** The constant for a C value; an unknown value is an IllegalArgumentException. Allocation-free. */
    public static AsyncEventType of(int value) {
        AsyncEventType c = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return CValues.known(c, "IBV_EVENT_*", value);
    }

    /** Which member of {@code ibv_async_event.element} is valid for this type (ibv_get_async_event.3). */
    public enum Element { CQ, QP, SRQ, WQ, PORT, DEVICE }

    /** The element union's valid member. */
    public Element element() {
        return switch (this) {
            case CQ_ERR -> Element.CQ;
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR,
                 QP_LAST_WQE_REACHED -> Element.QP;
            case SRQ_ERR, SRQ_LIMIT_REACHED -> Element.SRQ;
            case WQ_FATAL -> Element.WQ;
            case PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE ->
                    Element.PORT;
            case DEVICE_FATAL -> Element.DEVICE;
        };
    }

    /** {@code ibv_event_type_str}. */
    public String describe() {
        org.rdmacm4j.verbs.Rdma.requireLibraries();
        return org.rdmacm4j.verbs.internal.IbvLib.eventTypeStr(value);
    }
}
