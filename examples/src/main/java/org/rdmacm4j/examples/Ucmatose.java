package org.rdmacm4j.examples;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.*;
import org.rdmacm4j.cm.core.*;
import org.rdmacm4j.verbs.ibv.*;

/**
 * The twin of rdma-core's ucmatose, on the same wire: N raw RC connections (no private data),
 * then the server sends C messages of S bytes on each with plain SEND, the client receives them
 * all and sends C back, and the server disconnects. Receives and sends are posted through
 * {@link RdmaConnection#raw()}; their completions come to {@link ConnectionHandler#onCompletion}.
 * Runs against ucmatose in either role.
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
    private static final long SEND = 1, RECV = 2;   // work request ids (below 1L << 56)
    static int count, size, seconds, tos, ackTimeout;   // from the command line

    /** One connection's buffers and completion counters (ucmatose's cmatest_node). */
    static final class Node implements ConnectionHandler {
        final CountDownLatch sent = new CountDownLatch(count), received = new CountDownLatch(count);
        final CompletableFuture<Void> failed = new CompletableFuture<>();
        final Arena arena = Arena.ofShared();
        RdmaConnection connection;
        MemoryRegion mr;   // one buffer for sends and receives, as ucmatose's node->mem
        volatile boolean closing;

        void attach(RdmaConnection c) {
            connection = c;
            RawQueuePair raw = c.raw();
            mr = raw.protectionDomain().register(arena.allocate(size, 64), Access.LOCAL_WRITE);
            if (tos >= 0 || ackTimeout >= 0) {   // what the QP really got
                QpAttributes a = raw.queuePair().query(QpAttrMask.AV | QpAttrMask.TIMEOUT);
                System.out.printf("ucmatose: qp %d: traffic class %d, ack timeout %d%n", raw.queuePair().qpNum(),
                        a.ahAttr().trafficClass(), a.timeout());
            }
            try (RecvRequests wr = RecvRequests.allocate(1, 1)) {
                for (int i = 0; i < count; i++) {
                    raw.queuePair().postRecv(wr.set(0, RECV).sge(0, 0, mr, 0, size), 1);
                }
            }
        }

        void postSends() {
            try (SendRequests wr = SendRequests.allocate(1, 1)) {
                for (int i = 0; i < count; i++) {
                    connection.raw().queuePair().postSend(
                            wr.set(0, SEND, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, mr, 0, size), 1);
                }
            }
        }

        @Override public void onCompletion(RdmaConnection c, WorkCompletions wc, int i) {
            if (wc.status(i) != WcStatus.SUCCESS) {
                if (!closing) {
                    failed.complete(null);
                    System.out.println("ucmatose: work completion " + wc.status(i) + " on " + c.peerAddress());
                }
            } else if (wc.opcode(i) == WcOpcode.SEND) {
                sent.countDown();
            } else if (wc.byteLength(i) != size) {
                System.out.println("ucmatose: received " + wc.byteLength(i) + " bytes, expected " + size);
                failed.complete(null);
            } else {
                received.countDown();
            }
        }

        @Override public void onDisconnected(RdmaConnection c) { deregister(); }
        @Override public void onError(RdmaConnection c, RdmaCmException e) { deregister(); }

        /** Our region goes before the connection closes: its teardown may free the protection domain. */
        synchronized void deregister() {
            closing = true;   // flushed work requests are no failure from here on
            if (mr != null) {
                mr.close();
                mr = null;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Cli cli = Cli.parse("ucmatose", USAGE, args, "-s -b -c -C -S -p -w -t -a", "");
        String server = cli.get("-s", null), bind = cli.get("-b", null);
        int connections = cli.integer("-c", 1, 1, 100_000), port = cli.integer("-p", 7471, 1, 65535);
        count = cli.integer("-C", 10, 1, 1 << 20);
        size = cli.integer("-S", 100, 1, 1 << 30);
        seconds = cli.integer("-w", 60, 1, 86_400);
        tos = cli.integer("-t", -1, 0, 255);   // ucmatose reads it with strtoul(.., 0): 0x20 works too
        ackTimeout = cli.integer("-a", -1, 0, 31);
        List<Node> nodes = new ArrayList<>();
        int status = 0;
        try (RdmaCm cm = RdmaCm.open()) {
            try {
                if (server != null) {
                    client(cm, nodes, server, bind, port, connections);
                } else {
                    server(cm, nodes, bind, port, connections);
                }
            } finally {   // our memory regions go before the RdmaCm frees the device's protection domain
                for (Node n : nodes) {
                    n.deregister();
                    if (n.connection != null) {
                        n.connection.abort().get(seconds, TimeUnit.SECONDS);
                    }
                    n.arena.close();   // the QP is gone: nothing can be received into it any more
                }
            }
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            System.out.println("ucmatose: FAILED: " + Cli.describe(e, seconds));
            status = 1;
        }
        System.out.println("test complete");
        System.out.println("return status " + status);
        System.exit(status);
    }

    static QpCapabilities caps() {
        return new QpCapabilities(count, count, 1, 1, 0, 2 * count);
    }

    static void server(RdmaCm cm, List<Node> nodes, String bind, int port, int connections) throws Exception {
        System.out.println("ucmatose: starting server");
        List<CompletableFuture<RdmaConnection>> accepted = new ArrayList<>();
        CountDownLatch all = new CountDownLatch(connections);
        InetAddress local = bind == null ? InetAddress.getByName("0.0.0.0") : InetAddress.getByName(bind);
        RdmaListener l = cm.listen(new InetSocketAddress(local, port), ListenOptions.defaults(), request -> {
            synchronized (nodes) {
                if (nodes.size() == connections) {
                    System.out.println("ucmatose: failing connection request");
                    request.reject(new byte[0]);
                    return;
                }
                Node node = new Node();
                nodes.add(node);
                AcceptOptions o = AcceptOptions.defaults().raw().qp(caps());
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
        nodes.forEach(Node::postSends);
        System.out.println("completing sends");
        awaitAll(nodes, n -> n.sent, "send completions");
        System.out.println("receiving data transfers");
        awaitAll(nodes, n -> n.received, "messages");
        System.out.printf("data transfers complete (%d x %d messages of %d bytes each way in %.1f ms)%n",
                connections, count, size, (System.nanoTime() - t0) / 1e6);
        System.out.println("ucmatose: disconnecting");
        for (Node n : nodes) {
            n.deregister();
            n.connection.close().get(seconds, TimeUnit.SECONDS);
        }
        System.out.println("disconnected");
    }

    static void client(RdmaCm cm, List<Node> nodes, String server, String bind, int port, int connections)
            throws Exception {
        System.out.println("ucmatose: starting client");
        InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(server), port);
        ConnectOptions.Builder options = ConnectOptions.builder().raw().qp(caps());
        if (bind != null) options.source(new InetSocketAddress(InetAddress.getByName(bind), 0));
        if (tos >= 0) options.typeOfService(tos);
        if (ackTimeout >= 0) options.ackTimeout(ackTimeout);
        System.out.println("ucmatose: connecting");
        long t0 = System.nanoTime();
        List<CompletableFuture<RdmaConnection>> connects = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Node node = new Node();
            nodes.add(node);
            connects.add(cm.connect(target, options.build(), node));
        }
        for (int i = 0; i < connections; i++) {   // the server's sends wait (RNR retry) until these receives
            nodes.get(i).attach(connects.get(i).get(seconds + 30, TimeUnit.SECONDS));
        }
        System.out.printf("ucmatose: %d connection(s) established in %.1f ms%n", connections,
                (System.nanoTime() - t0) / 1e6);
        System.out.println("receiving data transfers");
        awaitAll(nodes, n -> n.received, "messages");
        System.out.println("sending replies");
        nodes.forEach(Node::postSends);
        awaitAll(nodes, n -> n.sent, "send completions");
        System.out.println("data transfers complete");
        nodes.forEach(Node::deregister);   // every receive and send has completed
        for (Node n : nodes) {   // the server disconnects once it has our replies
            n.connection.closeFuture().get(seconds, TimeUnit.SECONDS);
        }
    }

    /** Waits for every node's latch, each within -w seconds, failing early if its connection failed or closed. */
    static void awaitAll(List<Node> nodes, java.util.function.Function<Node, CountDownLatch> which, String what)
            throws InterruptedException {
        for (Node n : nodes) {
            CountDownLatch latch = which.apply(n);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (!latch.await(50, TimeUnit.MILLISECONDS)) {
                if (n.failed.isDone() || n.connection.isClosed() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("waiting for " + what + " from " + n.connection.peerAddress()
                            + ": " + latch.getCount() + " of " + count + " missing"
                            + (n.connection.isClosed() ? " (connection closed)" : ""));
                }
            }
        }
    }
}
