package org.rdmacm4j.verbs.cm;

/** {@code enum rdma_port_space}: the kind of id (RC for TCP, UD for UDP, either for IB). */
public enum PortSpace {
    /** Reliable connected QPs (IBV_QPT_RC). */
    TCP(0x0106),
    /** Unreliable datagram QPs (IBV_QPT_UD) and multicast. */
    UDP(0x0111),
    /** AF_IB addressing; RC or UD. */
    IB(0x013F);

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    public int value() { return value; }

    public String cName() { return "RDMA_PS_" + name(); }

    /** One copy: {@code values()} clones its array on every call, and every CmId asks. */
    private static final PortSpace[] ALL = values();

    public static PortSpace of(int value) {
        for (PortSpace p : ALL) {
            if (p.value == value) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown rdma_port_space " + value);
    }
}
