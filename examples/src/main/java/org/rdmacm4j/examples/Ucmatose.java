package org.rdmacm4j.examples;

import com.google.common.net.InetAddresses;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;

/**
 * The twin of rdma-core's ucmatose, on the same wire: N raw RC connections (no private data),
 * then the server sends C messages of S bytes on each with plain SEND, the client receives them
 * all and sends C back, and the server disconnects. Receives and sends are posted through
 * {@link RdmaConnection#raw()}; their completions come to {@link ConnectionHandler#onCompletion}.
 * Runs against ucmatose in either role. One {@link UcmatoseNode} a connection.
 */
public final class Ucmatose {
    private static final String USAGE = """
            usage: ucmatose [-s server_address] [-b bind_address] [-c connections] [-C message_count]
                            [-S message_size] [-p port_number] [-t type_of_service] [-a ack_timeout] [-w seconds]
              without -s: server, listening on -b (default: every address); exits after -c connections
              -c  connections (default 1)    -C  messages each way per connection (default 10)
              -S  bytes per message (default 100)    -p  port (default 7471)
              -t  IP type of service, 0-255 (client side, as ucmatose: the server's QP takes it from the request)
              -a  QP ACK timeout exponent, 0-31 (4.096 us x 2^a; either side)
              -w  deadline of each step in seconds (default 60)
              With -t or -a, each QP's traffic class and ACK timeout are printed as ibv_query_qp reports them.""";
    private final String server, bind;
    private final int connections, port, count, size, seconds, tos, ackTimeout;
    // The server's listener adds under its lock; the main thread reads it once the latch has all -c.
    private final List<UcmatoseNode> nodes = new ArrayList<>();

    /** The command line's settings; a bad one exits 2 with the usage. */
    private Ucmatose(Cli cli) {
        server = cli.get("-s", null);
        bind = cli.get("-b", null);
        connections = cli.integer("-c", 1, 1, 100_000);
        port = cli.integer("-p", 7471, 1, 65535);
        count = cli.integer("-C", 10, 1, 1 << 20);
        size = cli.integer("-S", 100, 1, 1 << 30);
        seconds = cli.integer("-w", 60, 1, 86_400);
        tos = cli.integer("-t", -1, 0, 255);   // ucmatose reads it with strtoul(.., 0): 0x20 works too
        ackTimeout = cli.integer("-a", -1, 0, 31);
    }

    public static void main(String[] args) throws Exception {
        Ucmatose ucmatose = new Ucmatose(Cli.parse("ucmatose", USAGE, args, "-s -b -c -C -S -p -w -t -a", ""));
        CmatoseRun.runAndExit("ucmatose", ucmatose.seconds, ucmatose::run);
    }

    private void run(RdmaCm cm) throws Exception {
        try {
            if (server != null) {
                client(cm);
            } else {
                server(cm);
            }
        } finally {   // our memory regions go before the RdmaCm frees the device's protection domain
            for (UcmatoseNode n : nodes) {
                n.free(seconds);
            }
        }
    }

    private UcmatoseNode newNode() {
        return new UcmatoseNode(count, size, tos >= 0 || ackTimeout >= 0);
    }

    private void server(RdmaCm cm) throws Exception {
        System.out.println("ucmatose: starting server");
        List<CompletableFuture<RdmaConnection>> accepted = new ArrayList<>();
        CountDownLatch all = new CountDownLatch(connections);
        InetAddress local = bind == null ? InetAddresses.forString("0.0.0.0") : InetAddress.getByName(bind);
        RdmaListener l = cm.listen(new InetSocketAddress(local, port), ListenOptions.defaults(), request -> {
            synchronized (nodes) {
                if (nodes.size() == connections) {
                    System.out.println("ucmatose: failing connection request");
                    request.reject(new byte[0]);
                    return;
                }
                UcmatoseNode node = newNode();
                nodes.add(node);
                AcceptOptions o = AcceptOptions.defaults().raw().qp(UcmatoseNode.capabilities(count));
                accepted.add(request.accept(node, ackTimeout < 0 ? o : o.ackTimeout(ackTimeout)));
                all.countDown();
            }
        });
        System.out.println("ucmatose: listening on " + l.localAddress());
        all.await();   // as ucmatose: wait for the connections, however long
        long t0 = System.nanoTime();
        for (int i = 0; i < connections; i++) {
            nodes.get(i).attach(accepted.get(i).get(seconds, TimeUnit.SECONDS));
        }
        l.close().get(seconds, TimeUnit.SECONDS);
        System.out.println("initiating data transfers");
        nodes.forEach(UcmatoseNode::postSends);
        System.out.println("completing sends");
        awaitAll(n -> n.sent, "send completions");
        System.out.println("receiving data transfers");
        awaitAll(n -> n.received, "messages");
        System.out.printf("data transfers complete (%d x %d messages of %d bytes each way in %.1f ms)%n",
                connections, count, size, (System.nanoTime() - t0) / 1e6);
        System.out.println("ucmatose: disconnecting");
        for (UcmatoseNode n : nodes) {
            n.deregister();
            n.connection().close().get(seconds, TimeUnit.SECONDS);
        }
        System.out.println("disconnected");
    }

    private void client(RdmaCm cm) throws Exception {
        System.out.println("ucmatose: starting client");
        InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(server), port);
        ConnectOptions.Builder options = ConnectOptions.builder().raw().qp(UcmatoseNode.capabilities(count));
        if (bind != null) options.source(new InetSocketAddress(InetAddress.getByName(bind), 0));
        if (tos >= 0) options.typeOfService(tos);
        if (ackTimeout >= 0) options.ackTimeout(ackTimeout);
        System.out.println("ucmatose: connecting");
        long t0 = System.nanoTime();
        List<CompletableFuture<RdmaConnection>> connects = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            UcmatoseNode node = newNode();
            nodes.add(node);
            connects.add(cm.connect(target, options.build(), node));
        }
        for (int i = 0; i < connections; i++) {   // the server's sends wait (RNR retry) until these receives
            nodes.get(i).attach(connects.get(i).get(seconds + 30, TimeUnit.SECONDS));
        }
        System.out.printf("ucmatose: %d connection(s) established in %.1f ms%n", connections,
                (System.nanoTime() - t0) / 1e6);
        System.out.println("receiving data transfers");
        awaitAll(n -> n.received, "messages");
        System.out.println("sending replies");
        nodes.forEach(UcmatoseNode::postSends);
        awaitAll(n -> n.sent, "send completions");
        System.out.println("data transfers complete");
        nodes.forEach(UcmatoseNode::deregister);   // every receive and send has completed
        for (UcmatoseNode n : nodes) {   // the server disconnects once it has our replies
            n.connection().closeFuture().get(seconds, TimeUnit.SECONDS);
        }
    }

    /** Waits for every node's latch, each within -w seconds, failing early if its connection failed or closed. */
    private void awaitAll(Function<UcmatoseNode, CountDownLatch> which, String what) throws InterruptedException {
        for (UcmatoseNode n : nodes) {
            n.await(which.apply(n), what, seconds);
        }
    }
}
