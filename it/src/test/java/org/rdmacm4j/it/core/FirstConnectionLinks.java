package org.rdmacm4j.it.core;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.verbs.Rdma;

/**
 * A fresh JVM's first connection, for {@link PrelinkIT}: {@code FirstConnectionLinks on|off SERVER
 * CLIENT PORT} opens an RdmaCm with {@code prelink} on or off, waits for the background linker to
 * end (on), then listens, connects from CLIENT, sends one message each way, closes both ends and
 * the listener, and prints {@code linked-by-connection F1,F2,...} (or {@code -}): the native functions
 * that this connection's life linked itself ({@link Rdma#linkedFunctions()}). Every wait has a
 * deadline; a failure exits non-zero.
 */
public final class FirstConnectionLinks {
    private static final long WAIT_S = 60;

    private FirstConnectionLinks() { }

    public static void main(String[] args) throws Exception {
        boolean prelink = switch (args[0]) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("on or off, not " + args[0]);
        };
        var at = new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[3]));
        var from = new InetSocketAddress(InetAddress.getByName(args[2]), 0);
        try (RdmaCm cm = RdmaCm.builder().prelink(prelink).build()) {
            if (prelink) {
                awaitLinker();
            }
            Set<String> before = linked();
            var serverEnd = new CompletableFuture<RdmaConnection>();
            var serverGot = new CompletableFuture<Void>();
            RdmaListener listener = cm.listen(at, ListenOptions.defaults(), r -> r.accept(new ConnectionHandler() {
                @Override
                public void onMessage(RdmaConnection c, MemorySegment message) {
                    serverGot.complete(null);
                    c.send(new byte[] {2});
                }
            }).thenAccept(serverEnd::complete));
            var clientGot = new CompletableFuture<Void>();
            RdmaConnection client = cm.connect(at, ConnectOptions.builder().source(from).build(),
                    new ConnectionHandler() {
                        @Override
                        public void onMessage(RdmaConnection c, MemorySegment message) {
                            clientGot.complete(null);
                        }
                    }).get(WAIT_S, TimeUnit.SECONDS);
            RdmaConnection server = serverEnd.get(WAIT_S, TimeUnit.SECONDS);
            client.send(new byte[] {1}).get(WAIT_S, TimeUnit.SECONDS);
            serverGot.get(WAIT_S, TimeUnit.SECONDS);
            clientGot.get(WAIT_S, TimeUnit.SECONDS);
            client.close().get(WAIT_S, TimeUnit.SECONDS);
            server.closeFuture().get(WAIT_S, TimeUnit.SECONDS);
            listener.close().get(WAIT_S, TimeUnit.SECONDS);
            Set<String> added = new TreeSet<>(linked());
            added.removeAll(before);
            System.out.println("linked-before-connection " + before.size());
            System.out.println("linked-by-connection " + (added.isEmpty() ? "-" : String.join(",", added)));
        }
        System.exit(0);
    }

    private static void awaitLinker() throws InterruptedException {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("rdmacm4j-prelink") && !t.join(Duration.ofSeconds(WAIT_S * 2))) {
                throw new IllegalStateException("the linker did not end within " + WAIT_S * 2 + " s");
            }
        }
    }

    private static Set<String> linked() {
        return new TreeSet<>(Rdma.linkedFunctions());
    }
}
