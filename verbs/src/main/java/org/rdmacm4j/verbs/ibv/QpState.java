package org.rdmacm4j.verbs.ibv;

import org.rdmacm4j.verbs.internal.CValues;

/** {@code enum ibv_qp_state}. Each constant carries its C value, checked against the header by the layout test. */
public enum QpState {
    RESET(0),
    INIT(1),
    RTR(2),
    RTS(3),
    SQD(4),
    SQE(5),
    ERR(6),
    UNKNOWN(7);

    private static final QpState[] BY_VALUE = new QpState[8];

    static {
        for (QpState c : values()) {
            BY_VALUE[c.value] = c;
        }
    }

    private final int value;

    QpState(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name. */
    public String cName() { return "IBV_QPS_" + name(); }

    /** The constant for a C value; an unknown value is an IllegalArgumentException. Allocation-free. */
    public static QpState of(int value) {
        QpState c = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return CValues.known(c, "IBV_QPS_*", value);
    }
}
