package org.rdmacm4j.verbs.ibv;

import org.rdmacm4j.verbs.internal.CValues;

/** {@code enum ibv_port_state}. Each constant carries its C value, checked against the header by the layout test. */
public enum PortState {
    NOP(0),
    DOWN(1),
    INIT(2),
    ARMED(3),
    ACTIVE(4),
    ACTIVE_DEFER(5);

    private static final PortState[] BY_VALUE = new PortState[6];

    static {
        for (PortState c : values()) {
            BY_VALUE[c.value] = c;
        }
    }

    private final int value;

    PortState(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name. */
    public String cName() { return "IBV_PORT_" + name(); }

    /** The constant for a C value; an unknown value is an IllegalArgumentException. Allocation-free. */
    public static PortState of(int value) {
        PortState c = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return CValues.known(c, "IBV_PORT_*", value);
    }
}
