package org.rdmacm4j.cm.core.internal.datagram;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.Membership;

/**
 * The endpoint as its datagram channel and targets ({@link DatagramPath}, {@link PeerImpl},
 * {@link MembershipImpl}) see it: where datagrams and failures go, and how a target's close
 * reaches the dispatcher. An interface so that the channel and targets sit below the endpoint.
 * Any thread.
 */
public interface DatagramEnd extends DatagramEndpoint {
    DatagramHandler handler();

    /** The endpoint's serial executor: its callbacks and future completions, in order. */
    Executor callbacks();

    /** A user callback run outside the executor (onDatagram on the poller) threw. */
    void callbackFailed(Throwable t);

    /** Runs {@code work} on the dispatcher (an address handle's destroy). */
    void onDispatcher(Runnable work);

    /** Leaves a group joined on this endpoint. */
    CompletableFuture<Void> leave(Membership membership);
}
