package org.rdmacm4j.verbs.ibv;

/** {@code struct ibv_port_attr} as {@code ibv_query_port} fills it. Immutable. */
public record PortAttributes(PortState state, Mtu maxMtu, Mtu activeMtu, int gidTableLength, int portCapFlags,
                             long maxMessageSize, int pkeyTableLength, int lid, int smLid, int lmc,
                             int activeWidth, int activeSpeed, int physState, int linkLayer) {
    /** IBV_LINK_LAYER_ETHERNET: RoCE (rxe). */
    public static final int LINK_LAYER_ETHERNET = 2;
    /** IBV_LINK_LAYER_INFINIBAND. */
    public static final int LINK_LAYER_INFINIBAND = 1;
}
