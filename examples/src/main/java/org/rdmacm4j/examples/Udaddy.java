package org.rdmacm4j.examples;

import java.lang.foreign.MemorySegment;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.cm.core.DatagramSender;
import org.rdmacm4j.cm.core.RdmaCm;

/**
 * The twin of rdma-core's udaddy on {@link DatagramEndpoint}: the client resolves the server's
 * UD QP with SIDR (port 7174, as udaddy), sends C datagrams of S bytes whose immediate data is its
 * QPN, and waits for C back; the server answers each client, once it has all C of its datagrams,
 * with C datagrams to the QPN in their immediate data. Runs against udaddy in either role.
 */
public final class Udaddy {
    private static final String USAGE = """
            usage: udaddy [-s server_address] [-b bind_address] [-c connections] [-C message_count]
                          [-S message_size] [-w seconds]
              without -s: server on -b (required), UDP port 7174; exits after -c clients were answered
              -c  clients (server) or endpoints (client), default 1    -C  datagrams each way (default 10)
              -S  bytes per datagram (default 100; at most the port's MTU)    -w  deadline in s (default 60)
              udaddy's -t (type of service), -P/-p (port space) and -f are not offered by rdmacm4j's API.""";
    static final int PORT = 7174;
    static int count = 10, size = 100, seconds = 60;

    public static void main(String[] args) throws Exception {
        String server = null, bind = null;
        int connections = 1;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "-s" -> server = args[++i];
                    case "-b" -> bind = args[++i];
                    case "-c" -> connections = Integer.parseInt(args[++i]);
                    case "-C" -> count = Integer.parseInt(args[++i]);
                    case "-S" -> size = Integer.parseInt(args[++i]);
                    case "-w" -> seconds = Integer.parseInt(args[++i]);
                    case "-h", "--help" -> {
                        System.out.println(USAGE);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown or unsupported argument " + args[i]);
                }
            }
            if (connections < 1 || count < 1 || size < 0 || (server == null && bind == null)) {
                throw new IllegalArgumentException(server == null && bind == null
                        ? "the server needs -b (an endpoint binds a concrete address)" : "-c and -C must be at least 1");
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            System.err.println("udaddy: bad arguments (" + e.getMessage() + ")\n" + USAGE);
            System.exit(2);
        }
        int status = 0;
        try (RdmaCm cm = RdmaCm.open()) {
            if (server != null) {
                client(cm, server, bind, connections);
            } else {
                server(cm, bind, connections);
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String what = t instanceof TimeoutException ? "no progress within " + seconds + " s" : t.getMessage();
            System.out.println("udaddy: FAILED: " + (what == null ? t : what.lines().findFirst().orElse("")));
            status = 1;
        }
        System.out.println("test complete");
        System.out.println("return status " + status);
        System.exit(status);
    }

    static void server(RdmaCm cm, String bind, int clients) throws Exception {
        System.out.println("udaddy: starting server");
        Map<Integer, AtomicInteger> perClient = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> replies = new ArrayList<>();
        CountDownLatch answered = new CountDownLatch(clients);
        AtomicInteger wrongSize = new AtomicInteger();
        DatagramHandler handler = (endpoint, from, data) -> {
            if (data.byteSize() != size) {
                wrongSize.incrementAndGet();
            }
            int qpn = from.immediateData();   // udaddy's convention: the sender's QPN in the immediate data
            if (perClient.computeIfAbsent(qpn, k -> new AtomicInteger()).incrementAndGet() == count) {
                DatagramPeer back = from.replyTarget(qpn);
                CompletableFuture<?>[] sends = new CompletableFuture<?>[count];
                for (int i = 0; i < count; i++) {
                    sends[i] = endpoint.send(back, new byte[size]);
                }
                synchronized (replies) {
                    replies.add(CompletableFuture.allOf(sends).whenComplete((v, e) -> back.close()));
                }
                answered.countDown();
            }
        };
        DatagramEndpoint ep = cm.openDatagram(new InetSocketAddress(InetAddress.getByName(bind), PORT),
                DatagramOptions.defaults(), handler);
        System.out.printf("udaddy: endpoint %s qpn 0x%x, max datagram %d B%n", ep.localAddress(), ep.queuePairNumber(),
                ep.maxDatagramSize());
        System.out.println("receiving data transfers");
        answered.await();   // as udaddy's server: wait for its clients, however long
        System.out.println("sending replies");
        synchronized (replies) {
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get(seconds, TimeUnit.SECONDS);
        }
        if (wrongSize.get() > 0) {
            throw new IllegalStateException(wrongSize.get() + " datagrams were not " + size + " bytes");
        }
        System.out.println("data transfers complete");
        ep.close().get(seconds, TimeUnit.SECONDS);
    }

    static void client(RdmaCm cm, String server, String bind, int connections) throws Exception {
        System.out.println("udaddy: starting client");
        InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(server), PORT);
        InetAddress local;
        if (bind != null) {
            local = InetAddress.getByName(bind);
        } else {
            try (DatagramSocket route = new DatagramSocket()) {   // the source address the routing table picks
                route.connect(target);
                local = route.getLocalAddress();
            }
        }
        List<DatagramEndpoint> endpoints = new ArrayList<>();
        List<DatagramPeer> peers = new ArrayList<>();
        CountDownLatch received = new CountDownLatch(connections * count);
        AtomicInteger wrongSize = new AtomicInteger();
        DatagramHandler handler = (DatagramEndpoint endpoint, DatagramSender from, MemorySegment data) -> {
            if (data.byteSize() != size) {
                wrongSize.incrementAndGet();
            }
            received.countDown();
        };
        System.out.println("udaddy: connecting");
        for (int i = 0; i < connections; i++) {
            DatagramEndpoint ep = cm.openDatagram(new InetSocketAddress(local, 0), DatagramOptions.defaults(), handler);
            endpoints.add(ep);
            peers.add(ep.resolve(target).get(seconds, TimeUnit.SECONDS));
            System.out.printf("udaddy: endpoint qpn 0x%x resolved %s to qpn 0x%x%n", ep.queuePairNumber(), target,
                    peers.get(i).queuePairNumber());
        }
        System.out.println("initiating data transfers");
        long t0 = System.nanoTime();
        for (int i = 0; i < connections; i++) {
            for (int m = 0; m < count; m++) {
                endpoints.get(i).send(peers.get(i), new byte[size]).get(seconds, TimeUnit.SECONDS);
            }
        }
        System.out.println("receiving data transfers");
        if (!received.await(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException(received.getCount() + " of " + connections * count
                    + " datagrams did not come back within " + seconds + " s");
        }
        if (wrongSize.get() > 0) {
            throw new IllegalStateException(wrongSize.get() + " datagrams were not " + size + " bytes");
        }
        System.out.printf("data transfers complete (%d x %d datagrams of %d bytes each way in %.1f ms)%n",
                connections, count, size, (System.nanoTime() - t0) / 1e6);
        for (DatagramEndpoint ep : endpoints) {
            ep.close().get(seconds, TimeUnit.SECONDS);
        }
    }
}
