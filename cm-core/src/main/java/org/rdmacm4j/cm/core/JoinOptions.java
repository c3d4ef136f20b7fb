package org.rdmacm4j.cm.core;

/**
 * Options of a multicast join.
 *
 * @param noLoopback drop datagrams this endpoint sent to the group itself (on rxe and most RoCE
 *                   devices the sender's own attached QP receives them). Done in software: a
 *                   datagram addressed to a group (GRH destination GID) whose source QPN is this
 *                   endpoint's is not delivered. Send-only joins (mckey -o, rdma_join_multicast_ex) are not offered.
 */
public record JoinOptions(boolean noLoopback) {

    public static JoinOptions defaults() {
        return new JoinOptions(false);
    }

    public JoinOptions withNoLoopback(boolean on) {
        return new JoinOptions(on);
    }
}
