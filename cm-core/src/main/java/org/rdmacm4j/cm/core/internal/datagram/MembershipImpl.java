package org.rdmacm4j.cm.core.internal.datagram;

import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.Membership;
import org.rdmacm4j.verbs.ibv.AddressHandle;

/** A joined group: its address handle, QPN 0xFFFFFF and Q_Key. Any thread. */
public final class MembershipImpl extends TargetHandle implements Membership {
    private final InetAddress group;
    private final JoinOptions options;
    private final DatagramEnd endpoint;
    public volatile CompletableFuture<Void> leaving;
    /** Dispatcher thread: re-joins in a row since the last MULTICAST_JOIN (the RejoinPolicy's count). */
    public int rejoinAttempts;
    /** Dispatcher thread: left after a MULTICAST_ERROR, a re-join waits for its backoff. */
    public boolean rejoinPending;

    public MembershipImpl(AddressHandle ah, Targets targets, DatagramEnd endpoint, InetAddress group,
                   JoinOptions options, int qpn, int qkey) {
        super(ah, targets, qpn, qkey);
        this.endpoint = endpoint;
        this.group = group;
        this.options = options;
    }

    @Override
    public InetAddress group() {
        return group;
    }

    @Override
    public JoinOptions options() {
        return options;
    }

    @Override
    public boolean isLeft() {
        return destroyed();
    }

    @Override
    public synchronized CompletableFuture<Void> leave() {
        if (leaving == null) {
            leaving = endpoint.leave(this);
        }
        return leaving.copy();
    }

    @Override
    public String toString() {
        return "membership[" + group.getHostAddress() + "]";
    }
}
