package org.rdmacm4j.verbs.ibv;

import org.rdmacm4j.verbs.internal.CValues;

/** {@code enum ibv_qp_type}. Each constant carries its C value, checked against the header by the layout test. */
public enum QpType {
    RC(2),
    UC(3),
    UD(4),
    RAW_PACKET(8),
    XRC_SEND(9),
    XRC_RECV(10),
    DRIVER(255);

    private static final QpType[] BY_VALUE = new QpType[256];

    static {
        for (QpType c : values()) {
            BY_VALUE[c.value] = c;
        }
    }

    private final int value;

    QpType(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name. */
    public String cName() { return "IBV_QPT_" + name(); }

    /** The constant for a C value; an unknown value is an IllegalArgumentException. Allocation-free. */
    public static QpType of(int value) {
        QpType c = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return CValues.known(c, "IBV_QPT_*", value);
    }
}
