package org.rdmacm4j.cm.core.internal.datagram;

import java.net.InetAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.rdmacm4j.cm.core.DatagramTarget;

/**
 * What the targets of one endpoint share: the set of address handles still open (destroyed at the
 * path's release), the groups whose own-QP loopback is dropped, and the endpoint they belong to.
 * Its own class, apart from {@link DatagramPath}, so that a target does not reach into the path
 * that makes targets. Any thread.
 */
public final class Targets {
    /** Address handles made for this endpoint and not yet destroyed (each a {@link TargetHandle}). */
    final Set<DatagramTarget> handles = ConcurrentHashMap.newKeySet();
    /** Groups whose own-QP loopback is dropped. */
    public final Set<InetAddress> noLoopback = ConcurrentHashMap.newKeySet();
    private volatile DatagramEnd endpoint;

    void bind(DatagramEnd endpoint) {
        this.endpoint = endpoint;
    }

    /** The endpoint, or null before the path was bound to one. */
    DatagramEnd endpoint() {
        return endpoint;
    }
}
