package org.rdmacm4j.examples;

import com.google.common.net.InetAddresses;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.rdmacm4j.cm.core.*;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.RetryPolicy;

/**
 * Twin of rdma-core's cmtime: times N RC connections through every CM step and prints cmtime's
 * table. The public API times no native call by itself, so each row comes from the connection's
 * {@code history()} (elapsed time of each state-machine step since its id was created):
 * resolve addr = the connect command to ADDR_RESOLVED; create qp = ADDR_RESOLVED to the step's
 * calls succeeding (QP, CQ and channel created, rdma_resolve_route issued); resolve route = then to
 * ROUTE_RESOLVED; connect = ROUTE_RESOLVED to ESTABLISHED; disconnect = the close command to
 * DISCONNECTED; destroy = DISCONNECTED to CLOSED (QP drained; QP, CQ, channel and id destroyed).
 * total ms = wall time during which at least one connection was in the step (ids are placed on
 * one clock by the time connect() was called for them); max ms / min us: per connection;
 * us / conn = total / N, as in cmtime.
 * Modes: --lockstep (default, as cmtime) gives the N connects one {@link StepBarrier}, so each step
 * starts for all once all finished the one before, and "create id" is measured (connect() called to
 * the first step opening); --pipelined starts all N connects at once; --sequential connects one at a
 * time. In every mode the N closes are issued at once (--sequential: one at a time). The server
 * accepts N connections (raw), lets the clients disconnect them (closing what is left after --linger
 * seconds) and exits.
 */
public final class Cmtime {
    private static final QpCapabilities CMTIME_QP = new QpCapabilities(1, 1, 1, 1, 0, 2); // cmtime's QP caps

    private static final String USAGE = """
            usage: cmtime [-s server_address] [-b bind_address] [-c connections] [-p port_number]
                          [-r retries] [-t timeout_ms] [--lockstep | --pipelined | --sequential]
                          [--linger seconds] [--history]
              without -s: server; accepts the connections, exits once the client closed them
              --lockstep    (default) as cmtime: each step for all connections before the next
              --pipelined   all connects at once (their steps overlap), then all closes
              --sequential  one connect at a time, then one close at a time
              --linger      server: seconds to wait for the client to disconnect (default 30)
              --history     client: print the first and last connections' histories (what the rows are made of)""";

    private Cmtime() { }

    public static void main(String[] args) throws Exception {
        Cli cli = Cli.parse("cmtime", USAGE, args, "-s -b -c -p -r -t --linger",
                "--lockstep --pipelined --sequential --history");
        int n = cli.integer("-c", 100, 1, 1_000_000), port = cli.integer("-p", 7471, 1, 65535);
        String mode = cli.has("--sequential") ? "sequential" : cli.has("--pipelined") ? "pipelined" : "lockstep";
        cli.require(Stream.of("--lockstep", "--pipelined", "--sequential").filter(cli::has).count() <= 1,
                "give at most one of --lockstep, --pipelined and --sequential");
        InetAddress src = cli.has("-b") ? InetAddress.getByName(cli.get("-b", null)) : null;
        int failed = !cli.has("-s") ? serve(src, port, n, cli.integer("--linger", 30, 0, 86_400))
                : connect(new InetSocketAddress(InetAddress.getByName(cli.get("-s", null)), port), src, n,
                        cli.integer("-r", 2, 0, 100), cli.integer("-t", 2000, 1, 3_600_000), mode, cli.has("--history"));
        System.exit(failed == 0 ? 0 : 1);
    }

    private static int serve(InetAddress bind, int port, int n, int linger) throws Exception {
        var accepted = new CountDownLatch(n);
        var closed = new CountDownLatch(n);
        var requests = new AtomicInteger();
        var byPeer = new AtomicInteger();
        var failures = new AtomicInteger();
        List<RdmaConnection> live = java.util.Collections.synchronizedList(new ArrayList<>());
        ConnectionHandler handler = new ConnectionHandler() {
            @Override public void onDisconnected(RdmaConnection c) { byPeer.incrementAndGet(); }
        };
        // The server's callbacks only count, collect and print a failure: run them on the dispatcher
        // (a direct executor), as cmtime's one-threaded event loop does, rather than waking a callback
        // thread twice per connection (the accept's completion, then its close).
        try (RdmaCm cm = RdmaCm.builder().callbackExecutor(Runnable::run).build()) {
            var address = new InetSocketAddress(bind != null ? bind : InetAddresses.forString("0.0.0.0"), port);
            cm.listen(address, ListenOptions.defaults().withMaxPendingRequests(Math.max(128, n))
                    .withAcceptTimeout(Duration.ofSeconds(60)), request -> {
                if (requests.incrementAndGet() > n) {
                    request.reject(new byte[0]);
                    return;
                }
                request.accept(handler, AcceptOptions.defaults().raw().qp(CMTIME_QP)).whenComplete((c, e) -> {
                    if (e != null) {
                        failures.incrementAndGet();
                        System.out.println("cmtime: accept failed: " + e.getMessage());
                        closed.countDown();
                    } else {
                        live.add(c);
                        c.closeFuture().thenRun(closed::countDown);
                    }
                    accepted.countDown();
                });
            });
            System.out.println("cmtime: listening on " + address + " for " + n + " connections");
            accepted.await();
            long t0 = System.nanoTime();
            System.out.println("cmtime: " + (n - failures.get()) + " connections accepted; waiting for the client to disconnect");
            if (!closed.await(linger, TimeUnit.SECONDS)) {
                System.out.println("cmtime: the client left connections open for " + linger + " s; closing them");
                CompletableFuture.allOf(live.stream().map(RdmaConnection::close).toArray(CompletableFuture[]::new))
                        .get(60, TimeUnit.SECONDS);
            }
            System.out.printf("cmtime: %d disconnected by the client in %.2f ms, %d failed%n", byPeer.get(),
                    (System.nanoTime() - t0) / 1e6, failures.get());
        }
        return failures.get();
    }

    private static int connect(InetSocketAddress server, InetAddress bind, int n, int retries, int timeoutMs,
                               String mode, boolean history) throws Exception {
        boolean sequential = mode.equals("sequential"), lockstep = mode.equals("lockstep");
        RetryPolicy r = RetryPolicy.defaults();
        Duration resolve = Duration.ofMillis(timeoutMs);
        Deadlines d = Deadlines.defaults();
        ConnectOptions.Builder b = ConnectOptions.builder().raw().qp(CMTIME_QP)
                .retries(new RetryPolicy(retries, r.initialBackoff(), r.maxBackoff(), r.multiplier(), true, true,
                        r.onNoListener(), r.onStaleConnection(), r.onBusy()))
                .deadlines(new Deadlines(Duration.ofSeconds(60), resolve, resolve, d.decision(), d.accept(),
                        Duration.ofSeconds(10), d.timewait(), d.drain(), d.quiesce()));
        if (lockstep) {
            b.stepBarrier(new StepBarrier(n));
        }
        ConnectOptions options = (bind != null ? b.source(new InetSocketAddress(bind, 0)) : b).build();
        long[] origin = new long[n];
        List<CompletableFuture<RdmaConnection>> connects = new ArrayList<>();
        int failed = 0;
        try (RdmaCm cm = RdmaCm.builder().historySize(64).build()) {
            System.out.printf("cmtime: %d connections to %s, %s%n", n, server, mode);
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                origin[i] = System.nanoTime();
                connects.add(cm.connect(server, options, ConnectionHandler.none()));
                if (sequential) {
                    connects.get(i).exceptionally(e -> null).get(120, TimeUnit.SECONDS);
                }
            }
            RdmaConnection[] cs = new RdmaConnection[n];
            for (int i = 0; i < n; i++) {
                try {
                    cs[i] = connects.get(i).get(120, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    failed++;
                    System.out.println("cmtime: connection " + i + " failed: " + e.getCause().getMessage().lines().findFirst().orElse(""));
                }
            }
            long connected = System.nanoTime();
            List<CompletableFuture<Void>> closes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (cs[i] != null) {
                    closes.add(cs[i].close());
                    if (sequential) {
                        closes.getLast().get(120, TimeUnit.SECONDS);
                    }
                }
            }
            CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            long done = System.nanoTime();
            for (int i : history ? new int[] {0, n - 1} : new int[0]) {
                if (cs[i] != null) {
                    cs[i].history().forEach(e -> System.out.println("history of connection " + i + ": " + e));
                }
            }
            CmtimeTable table = new CmtimeTable(n);
            for (int i = 0; i < n; i++) {
                if (cs[i] != null) {
                    table.add(i, cs[i].history(), origin[i], lockstep);
                }
            }
            table.print(bind != null);
            System.out.printf("connections/s: connect %.1f (%d in %.2f ms), connect + close %.1f (%.2f ms)%n",
                    (n - failed) / ((connected - start) / 1e9), n - failed, (connected - start) / 1e6,
                    (n - failed) / ((done - start) / 1e9), (done - start) / 1e6);
            System.out.println("""
                (a) rdma_create_id runs on rdmacm4j's dispatcher inside connect(); timed with --lockstep only
                    (until every id exists and the resolve step opens)
                (b) no separate rdma_bind_addr: the -b address goes to rdma_resolve_addr as its source
                create qp: the QP, CQ and channel are created, and rdma_resolve_route issued, in one dispatcher step""");
        }
        return failed;
    }
}
