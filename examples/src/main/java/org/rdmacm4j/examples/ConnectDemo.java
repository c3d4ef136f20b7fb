package org.rdmacm4j.examples;

import com.google.common.math.Quantiles;
import com.google.common.primitives.Longs;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RdmaUnavailableException;
import org.rdmacm4j.cm.statemachine.RetryPolicy;

/**
 * The connection demo: a server and a client in one process over rdma_cm. The server accepts
 * every request whose private data says "hello" (and answers with its own), rejects the others
 * with a reason; the client connects N times, each time checking the exact bytes both ways, then
 * shows a rejected connect and a connect to a port nobody listens on. Prints connect and close
 * latency percentiles and the RdmaCm's counters. Public API only.
 *
 * <pre>examples/bin/connect-demo [-a server-address] [-b client-address] [-n connections]</pre>
 */
public final class ConnectDemo {
    private static final String USAGE = """
            usage: connect-demo [-a server-address] [-b client-address] [-n connections]
              -a  the server's address (default 192.0.2.1)    -b  the client's (default 192.0.2.3)
              -n  connections (default 20)""";

    private ConnectDemo() { }

    public static void main(String[] args) throws Exception {
        Cli cli = Cli.parse("connect-demo", USAGE, args, "-a -b -n", "");
        String server = cli.get("-a", "192.0.2.1"), client = cli.get("-b", "192.0.2.3");
        int n = cli.integer("-n", 20, 1, 100_000);
        try {
            run(InetAddress.getByName(server), InetAddress.getByName(client), n);
        } catch (ExecutionException | TimeoutException | IOException | RdmaCmException e) {
            // RdmaUnavailableException's one line says it all (its cause is the bare errno it explains).
            System.err.println("connect-demo: FAILED: " + (e instanceof RdmaUnavailableException ? e.getMessage()
                    : e.getCause() != null ? e.getCause() : e));
            System.exit(1);
        }
    }

    private static void run(InetAddress serverAddr, InetAddress clientAddr, int n) throws Exception {
        byte[] welcome = "welcome".getBytes(StandardCharsets.UTF_8);
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener listener = cm.listen(new InetSocketAddress(serverAddr, 0), ListenOptions.defaults(),
                    request -> {
                        String said = new String(request.privateData(), StandardCharsets.UTF_8);
                        if (said.startsWith("hello")) {
                            request.accept(ConnectionHandler.none(), AcceptOptions.withPrivateData(welcome));
                        } else {
                            request.reject(("no thanks: " + said).getBytes(StandardCharsets.UTF_8));
                        }
                    });
            InetSocketAddress target = new InetSocketAddress(serverAddr, listener.localAddress().getPort());
            System.out.printf("connect-demo: listening on %s; %d connections from %s%n", target, n,
                    clientAddr.getHostAddress());

            long[] connectNanos = new long[n];
            long[] closeNanos = new long[n];
            for (int i = 0; i < n; i++) {
                byte[] hello = ("hello #" + i).getBytes(StandardCharsets.UTF_8);
                ConnectOptions options = ConnectOptions.builder().privateData(hello)
                        .source(new InetSocketAddress(clientAddr, 0)).build();
                long t0 = System.nanoTime();
                RdmaConnection c = cm.connect(target, options, ConnectionHandler.none()).get(30, TimeUnit.SECONDS);
                long t1 = System.nanoTime();
                if (!Arrays.equals(c.peerPrivateData(), welcome)) {
                    throw new IllegalStateException("connection " + i + ": the server's private data came back as "
                            + Arrays.toString(c.peerPrivateData()));
                }
                c.close().get(30, TimeUnit.SECONDS);
                connectNanos[i] = t1 - t0;
                closeNanos[i] = System.nanoTime() - t1;
            }
            System.out.println("connect-demo: " + n + " connections established and closed, private data checked both ways");
            print("connect (resolve + route + CM handshake)", connectNanos);
            print("close (disconnect + free QP, CQ, channel, id)", closeNanos);

            try {
                cm.connect(target, ConnectOptions.builder().privateData("bye".getBytes(StandardCharsets.UTF_8))
                        .build(), ConnectionHandler.none()).get(30, TimeUnit.SECONDS);
                throw new IllegalStateException("a connect the server rejects succeeded");
            } catch (ExecutionException e) {
                ConnectionRejectedException r = (ConnectionRejectedException) e.getCause();
                System.out.printf("connect-demo: rejected as expected: reason %s, the server said \"%s\"%n",
                        r.reason(), new String(r.peerData(), StandardCharsets.UTF_8));
            }
            listener.close().get(30, TimeUnit.SECONDS);
            try {
                cm.connect(target, ConnectOptions.builder().retries(RetryPolicy.never()).build(),
                        ConnectionHandler.none()).get(30, TimeUnit.SECONDS);
                throw new IllegalStateException("a connect to a closed listener succeeded");
            } catch (ExecutionException e) {
                ConnectionRejectedException r = (ConnectionRejectedException) e.getCause();
                System.out.println("connect-demo: after the listener closed: " + r.reason());
            }
            System.out.println("connect-demo: counters: " + cm.statistics());
        }
        System.out.println("connect-demo: RdmaCm closed");
    }

    private static void print(String what, long[] nanos) {
        Map<Integer, Double> p = Quantiles.percentiles().indexes(50, 99).compute(nanos);
        System.out.printf("connect-demo: %-48s p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms%n", what,
                p.get(50) / 1e6, p.get(99) / 1e6, Longs.max(nanos) / 1e6);
    }
}
