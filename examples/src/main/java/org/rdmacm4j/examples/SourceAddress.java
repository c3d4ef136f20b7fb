package org.rdmacm4j.examples;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The local address a datagram endpoint binds: the {@code -b} address if given, else the one the
 * routing table picks towards the peer (an endpoint binds a concrete address, not the wildcard,
 * while rdma-core's tools let rdma_resolve_addr choose).
 */
final class SourceAddress {
    private SourceAddress() { }

    static InetAddress of(String bind, InetSocketAddress peer) throws IOException {
        if (bind != null) {
            return InetAddress.getByName(bind);
        }
        try (DatagramSocket route = new DatagramSocket()) {   // connect() only asks the routing table: nothing is sent
            route.connect(peer);
            return route.getLocalAddress();
        }
    }
}
