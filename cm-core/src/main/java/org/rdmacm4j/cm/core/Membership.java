package org.rdmacm4j.cm.core;

import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;

/** A joined multicast group: also a send target (the group's address handle, QPN 0xFFFFFF, its Q_Key). */
public interface Membership extends DatagramTarget {

    InetAddress group();

    JoinOptions options();

    /** True once left (by {@link #leave()}, the endpoint's close, or a lost membership). */
    boolean isLeft();

    /** rdma_leave_multicast (the QP is detached). Idempotent; completes when done. */
    CompletableFuture<Void> leave();
}
