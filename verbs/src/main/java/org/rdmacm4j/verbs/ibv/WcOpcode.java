package org.rdmacm4j.verbs.ibv;

import org.rdmacm4j.verbs.internal.CValues;

/** {@code enum ibv_wc_opcode}: what a completion completed (receives have bit 7 set). Each constant carries its C value, checked against the header by the layout test. */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    BIND_MW(5),
    LOCAL_INV(6),
    TSO(7),
    ATOMIC_WRITE(9),
    RECV(128),
    RECV_RDMA_WITH_IMM(129),
    TM_ADD(130),
    TM_DEL(131),
    TM_SYNC(132),
    TM_RECV(133),
    TM_NO_TAG(134),
    DRIVER1(135),
    DRIVER2(136),
    DRIVER3(137);

    private static final WcOpcode[] BY_VALUE = new WcOpcode[138];

    static {
        for (WcOpcode c : values()) {
            BY_VALUE[c.value] = c;
        }
    }

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name. */
    public String cName() { return "IBV_WC_" + name(); }

    /** The constant for a C value; an unknown value is an IllegalArgumentException. Allocation-free. */
    public static WcOpcode of(int value) {
        WcOpcode c = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return CValues.known(c, "IBV_WC_*", value);
    }
}
