package org.rdmacm4j.it.core;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;

/**
 * A peer process for tests that kill their peer: listens on ADDR PORT and echoes every message,
 * until it is killed (or after 120 s, so it never outlives a broken test).
 */
public final class EchoPeer {
    private EchoPeer() { }

    public static void main(String[] args) throws Exception {
        var address = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        try (RdmaCm cm = RdmaCm.open()) {
            cm.listen(address, ListenOptions.defaults(), r -> r.accept(new ConnectionHandler() {
                @Override
                public void onMessage(RdmaConnection c, MemorySegment message) {
                    c.send(message);
                }
            }));
            System.out.println("echo peer listening on " + address);
            Thread.sleep(120_000);
        }
    }
}
