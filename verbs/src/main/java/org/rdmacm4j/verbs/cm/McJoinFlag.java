package org.rdmacm4j.verbs.cm;

/**
 * {@code enum rdma_cm_mc_join_flags}: how {@code rdma_join_multicast_ex} joins a group.
 * A send-only full member may send to the group but receives nothing from it: librdmacm does not
 * attach the id's QP ({@code ibv_attach_mcast}) and, on RoCE, the kernel sends no IGMP join.
 */
public enum McJoinFlag {
    /** A full member: receives the group's datagrams (the QP is attached) and may send. */
    FULLMEMBER(0),
    /** Send only: may send to the group; the QP is not attached, nothing is received. */
    SENDONLY_FULLMEMBER(1);

    private final int value;

    McJoinFlag(int value) {
        this.value = value;
    }

    public int value() { return value; }

    public String cName() { return "RDMA_MC_JOIN_FLAG_" + name(); }
}
