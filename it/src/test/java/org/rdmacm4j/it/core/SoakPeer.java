package org.rdmacm4j.it.core;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;

/**
 * The peer process of {@link SoakIT}'s SIGKILL fault: a separate JVM with its own {@link RdmaCm}
 * that connects {@code connections} times to the soak's listener (private data {@link #TAG}) and
 * sends checked messages on each until it is killed, or until {@code lifetimeSeconds} have passed
 * (then it closes and exits, so a test that dies never leaves it behind).
 *
 * <pre>java ... org.rdmacm4j.it.core.SoakPeer SERVER_ADDR PORT CONNECTIONS LIFETIME_SECONDS</pre>
 */
public final class SoakPeer {
    static final byte[] TAG = "soak-peer".getBytes(StandardCharsets.US_ASCII);

    private SoakPeer() { }

    public static void main(String[] args) throws Exception {
        InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        int connections = Integer.parseInt(args[2]);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[3]));
        try (RdmaCm cm = RdmaCm.open()) {
            ConnectOptions options = ConnectOptions.builder().privateData(TAG).timeout(Duration.ofSeconds(60)).build();
            List<RdmaConnection> open = new ArrayList<>();
            while (open.size() < connections && System.nanoTime() < end) {
                try {
                    open.add(cm.connect(target, options, ConnectionHandler.none()).get(90, TimeUnit.SECONDS));
                } catch (java.util.concurrent.ExecutionException e) {
                    // The soak may be between closing its listener and listening again: try again.
                    System.out.println("soak peer: connect failed (" + e.getCause() + "); again");
                }
            }
            System.out.println("soak peer: " + connections + " connections to " + target);
            List<CheckedTraffic.Sender> senders = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                senders.add(new CheckedTraffic.Sender());
            }
            while (System.nanoTime() < end) {
                for (int i = 0; i < connections; i++) {
                    CheckedTraffic.Sender s = senders.get(i);
                    s.sends.clear();
                    s.send(open.get(i), 8, 256);
                }
                for (CheckedTraffic.Sender s : senders) {
                    CompletableFuture.allOf(s.sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                }
            }
            for (RdmaConnection c : open) {
                c.close().get(30, TimeUnit.SECONDS);
            }
        }
    }
}
