package org.rdmacm4j.cm.core;

import java.util.Objects;

/**
 * Options of a multicast join.
 *
 * @param noLoopback drop datagrams this endpoint sent to the group itself (on rxe and most RoCE
 *                   devices the sender's own attached QP receives them). Done in software: a
 *                   datagram addressed to a group (GRH destination GID) whose source QPN is this
 *                   endpoint's is not delivered.
 * @param sendOnly   join as a send-only full member ({@code rdma_join_multicast_ex} with
 *                   RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER, as {@code mckey -o}): the membership is a
 *                   send target, but the QP is not attached to the group, so nothing sent to the
 *                   group reaches this endpoint; on RoCE the kernel sends no IGMP join for it.
 * @param rejoin     what happens after a MULTICAST_ERROR on the joined group
 */
public record JoinOptions(boolean noLoopback, boolean sendOnly, RejoinPolicy rejoin) {

    public JoinOptions {
        Objects.requireNonNull(rejoin, "rejoin");
    }

    /** A full member, own datagrams looped back, {@link RejoinPolicy#defaults()}. */
    public static JoinOptions defaults() {
        return new JoinOptions(false, false, RejoinPolicy.defaults());
    }

    public JoinOptions withNoLoopback(boolean on) {
        return new JoinOptions(on, sendOnly, rejoin);
    }

    public JoinOptions withSendOnly(boolean on) {
        return new JoinOptions(noLoopback, on, rejoin);
    }

    public JoinOptions withRejoin(RejoinPolicy policy) {
        return new JoinOptions(noLoopback, sendOnly, policy);
    }
}
