package org.rdmacm4j.it.twohost;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;

/**
 * Role b of the two-host fault scenarios: listens on 192.0.2.2:7500, echoes every message, and
 * keeps its accepted connections alive with a keepalive, so it notices a client it can no longer
 * reach too. Runs until the host side writes {@code stop} into its results directory (or 300 s
 * pass), then closes everything and exits 0; its host's resource counts are checked after it.
 */
public final class TwoHostPeer {
    private TwoHostPeer() { }

    public static void main(String[] args) throws Exception {
        Path stop = TwoHostFabric.out().resolve("stop");
        var accepted = new AtomicInteger();
        var failed = new AtomicInteger();
        ConnectionHandler echo = new ConnectionHandler() {
            @Override
            public void onMessage(RdmaConnection c, MemorySegment message) {
                c.send(message);
            }

            @Override
            public void onError(RdmaConnection c, RdmaCmException e) {
                failed.incrementAndGet();
                System.out.println("peer: connection failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        };
        try (RdmaCm cm = RdmaCm.open()) {
            cm.listen(TwoHostFabric.address(TwoHostFabric.B, TwoHostFabric.PEER_PORT),
                    ListenOptions.defaults().withKeepalive(new KeepaliveOptions(Duration.ofMillis(200), 3)),
                    r -> r.accept(echo).thenRun(accepted::incrementAndGet));
            System.out.println("peer: listening on " + TwoHostFabric.B + ":" + TwoHostFabric.PEER_PORT);
            TwoHostFabric.announceReady();
            long deadline = System.nanoTime() + Duration.ofSeconds(300).toNanos();
            while (!Files.exists(stop) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            System.out.println("peer: " + (Files.exists(stop) ? "asked to stop" : "deadline passed") + "; accepted "
                    + accepted.get() + ", failed " + failed.get());
        }
        System.out.println("peer: closed");
    }
}
