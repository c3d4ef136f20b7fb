package org.rdmacm4j.verbs.ibv;

import org.rdmacm4j.verbs.internal.CValues;

/** {@code enum ibv_wr_opcode}: what a send work request does. Each constant carries its C value, checked against the header by the layout test. */
public enum WrOpcode {
    RDMA_WRITE(0),
    RDMA_WRITE_WITH_IMM(1),
    SEND(2),
    SEND_WITH_IMM(3),
    RDMA_READ(4),
    ATOMIC_CMP_AND_SWP(5),
    ATOMIC_FETCH_AND_ADD(6),
    LOCAL_INV(7),
    BIND_MW(8),
    SEND_WITH_INV(9),
    TSO(10),
    DRIVER1(11),
    ATOMIC_WRITE(15);

    private static final WrOpcode[] BY_VALUE = new WrOpcode[16];

    static {
        for (WrOpcode c : values()) {
            BY_VALUE[c.value] = c;
        }
    }

    private final int value;

    WrOpcode(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name. */
    public String cName() { return "IBV_WR_" + name(); }

    /** The constant for a C value; an unknown value is an IllegalArgumentException. Allocation-free. */
    public static WrOpcode of(int value) {
        WrOpcode c = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return CValues.known(c, "IBV_WR_*", value);
    }
}
