package org.rdmacm4j.verbs.ibv;

import org.rdmacm4j.verbs.internal.CValues;

/** {@code enum ibv_mtu} (constant names are the byte counts: MTU_1024 is IBV_MTU_1024). Each constant carries its C value, checked against the header by the layout test. */
public enum Mtu {
    MTU_256(1),
    MTU_512(2),
    MTU_1024(3),
    MTU_2048(4),
    MTU_4096(5);

    private static final Mtu[] BY_VALUE = new Mtu[6];

    static {
        for (Mtu c : values()) {
            BY_VALUE[c.value] = c;
        }
    }

    private final int value;

    Mtu(int value) {
        this.value = value;
    }

    /** The C value. */
    public int value() { return value; }

    /** The C name. */
    public String cName() { return "IBV_" + name(); }

    /** The constant for a C value; an unknown value is an IllegalArgumentException. Allocation-free. */
    public static Mtu of(int value) {
        Mtu c = value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
        return CValues.known(c, "IBV_MTU_*", value);
    }
}
