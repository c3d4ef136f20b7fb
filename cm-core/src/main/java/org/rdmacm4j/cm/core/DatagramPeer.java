package org.rdmacm4j.cm.core;

import java.net.InetSocketAddress;

/**
 * A remote UD queue pair this endpoint can send to: an address handle plus QPN and Q_Key. From
 * {@link DatagramEndpoint#resolve} or {@link DatagramSender#replyTarget(int)}. Closing it destroys the
 * address handle; the endpoint's close destroys any left open.
 */
public interface DatagramPeer extends DatagramTarget, AutoCloseable {

    /** The peer's address if known (resolved peers), else null. */
    InetSocketAddress address();

    boolean isClosed();

    /** Destroys the address handle (on the dispatcher). Idempotent. */
    @Override
    void close();
}
