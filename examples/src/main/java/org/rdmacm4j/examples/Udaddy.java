package org.rdmacm4j.examples;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
    private final String server, bind;
    private final int connections, count, size, seconds;

    /** The command line's settings; a bad one exits 2 with the usage. */
    private Udaddy(Cli cli) {
        server = cli.get("-s", null);
        bind = cli.get("-b", null);
        cli.require(server != null || bind != null, "the server needs -b (an endpoint binds a concrete address)");
        connections = cli.integer("-c", 1, 1, 100_000);
        count = cli.integer("-C", 10, 1, 1 << 20);
        size = cli.integer("-S", 100, 0, 1 << 16);
        seconds = cli.integer("-w", 60, 1, 86_400);
    }

    public static void main(String[] args) throws Exception {
        Udaddy udaddy = new Udaddy(Cli.parse("udaddy", USAGE, args, "-s -b -c -C -S -w", ""));
        // -s names the server to be a client of; without it, this is the server
        CmatoseRun.runAndExit("udaddy", udaddy.seconds, udaddy.server != null ? udaddy::client : udaddy::server);
    }

    private void server(RdmaCm cm) throws Exception {
        System.out.println("udaddy: starting server");
        Map<Integer, AtomicInteger> perClient = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> replies = new ArrayList<>();
        CountDownLatch answered = new CountDownLatch(connections);   // -c: the clients to answer
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

    private void client(RdmaCm cm) throws Exception {
        System.out.println("udaddy: starting client");
        InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(server), PORT);
        InetAddress local = SourceAddress.of(bind, target);
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
