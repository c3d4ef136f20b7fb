package org.rdmacm4j.examples;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.rdmacm4j.cm.core.*;
import org.rdmacm4j.cm.statemachine.Deadlines;
import org.rdmacm4j.cm.statemachine.RetryPolicy;

/**
 * Twin of rdma-core's cmtime: times N RC connections through every CM step and prints cmtime's
 * table. The public API times no native call by itself, so each row comes from the connection's
 * {@code history()} (elapsed time of each state-machine step since its id was created):
 * resolve addr = id created to ADDR_RESOLVED; resolve route = ADDR_RESOLVED to ROUTE_RESOLVED
 * (this includes creating the QP, CQ and channel, which rdmacm4j does before resolving the route);
 * connect = ROUTE_RESOLVED to ESTABLISHED; disconnect = close() to DISCONNECTED; destroy =
 * DISCONNECTED to CLOSED (QP drained, QP, CQ, channel and id destroyed). "create id", "bind addr"
 * and "create qp" have no step of their own in the history and are printed as "-".
 * total ms = wall time during which at least one connection was in the step (ids are placed on
 * one clock by the time connect() was called for them); max ms / min us: per connection;
 * us / conn = total / N, as in cmtime.
 * Modes: --pipelined (default) starts all N connects at once, then all N closes; --sequential
 * connects one at a time, then closes one at a time. The server accepts N connections (raw),
 * lets the clients disconnect them (closing what is left after --linger seconds) and exits.
 */
public final class Cmtime {
    private static final String[] STEPS = {"create id", "bind addr", "resolve addr", "resolve route", "create qp",
        "connect", "disconnect", "destroy"};
    private static final String[] NOTE = {"a", "b", null, null, "c", null, null, null};
    private static final QpCapabilities CMTIME_QP = new QpCapabilities(1, 1, 1, 1, 0, 2); // cmtime's QP caps

    private Cmtime() { }

    public static void main(String[] args) throws Exception {
        String server = null, bind = null;
        int n = 100, port = 7471, retries = 2, timeoutMs = 2000, linger = 30;
        boolean sequential = false, history = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "-s" -> server = args[++i];
                    case "-b" -> bind = args[++i];
                    case "-c" -> n = Integer.parseInt(args[++i]);
                    case "-p" -> port = Integer.parseInt(args[++i]);
                    case "-r" -> retries = Integer.parseInt(args[++i]);
                    case "-t" -> timeoutMs = Integer.parseInt(args[++i]);
                    case "--linger" -> linger = Integer.parseInt(args[++i]);
                    case "--pipelined" -> sequential = false;
                    case "--sequential" -> sequential = true;
                    case "--history" -> history = true;
                    case "-h", "--help" -> {
                        System.out.println("""
                            usage: cmtime [-s server_address] [-b bind_address] [-c connections] [-p port_number]
                                          [-r retries] [-t timeout_ms] [--pipelined | --sequential] [--linger seconds] [--history]
                              without -s: server; accepts the connections, exits once the client closed them
                              --pipelined   (default) all connects at once, then all closes
                              --sequential  one connect at a time, then one close at a time
                              --linger      server: seconds to wait for the client to disconnect (default 30)
                              --history     client: print the first and last connections' histories (what the rows are made of)""");
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown argument " + args[i]);
                }
            }
            if (n < 1) {
                throw new IllegalArgumentException("-c must be at least 1");
            }
        } catch (RuntimeException e) {
            System.err.println("cmtime: " + e.getMessage() + " (see --help)");
            System.exit(2);
        }
        InetAddress src = bind == null ? null : InetAddress.getByName(bind);
        int failed = server == null ? serve(src, port, n, linger)
                : connect(new InetSocketAddress(InetAddress.getByName(server), port), src, n, retries, timeoutMs,
                        sequential, history);
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
        try (RdmaCm cm = RdmaCm.open()) {
            var address = new InetSocketAddress(bind != null ? bind : InetAddress.getByName("0.0.0.0"), port);
            cm.listen(address, ListenOptions.defaults().withMaxPendingRequests(Math.max(128, n)), request -> {
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
                               boolean sequential, boolean history) throws Exception {
        RetryPolicy r = RetryPolicy.defaults();
        Duration resolve = Duration.ofMillis(timeoutMs);
        Deadlines d = Deadlines.defaults();
        ConnectOptions.Builder b = ConnectOptions.builder().raw().qp(CMTIME_QP)
                .retries(new RetryPolicy(retries, r.initialBackoff(), r.maxBackoff(), r.multiplier(), true, true,
                        r.onNoListener(), r.onStaleConnection(), r.onBusy()))
                .deadlines(new Deadlines(Duration.ofSeconds(60), resolve, resolve, d.decision(), d.accept(),
                        Duration.ofSeconds(10), d.timewait(), d.drain(), d.quiesce()));
        ConnectOptions options = (bind != null ? b.source(new InetSocketAddress(bind, 0)) : b).build();
        long[] origin = new long[n];
        long[] closeAt = new long[n];
        List<CompletableFuture<RdmaConnection>> connects = new ArrayList<>();
        int failed = 0;
        try (RdmaCm cm = RdmaCm.builder().historySize(64).build()) {
            System.out.printf("cmtime: %d connections to %s, %s%n", n, server, sequential ? "sequential" : "pipelined");
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
                    closeAt[i] = System.nanoTime();
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
            long[][][] spans = new long[STEPS.length][n][]; // [step][conn] = {absolute start, absolute end}
            for (int i = 0; i < n; i++) {
                if (cs[i] != null) {
                    timeline(cs[i].history(), origin[i], closeAt[i], spans, i);
                }
            }
            System.out.println("step              total ms     max ms     min us  us / conn");
            for (int s = 0; s < STEPS.length; s++) {
                if (s == 1 && bind == null) {
                    continue;   // cmtime prints "bind addr" only with -b
                }
                row(STEPS[s], NOTE[s], spans[s], n);
            }
            System.out.printf("connections/s: connect %.1f (%d in %.2f ms), connect + close %.1f (%.2f ms)%n",
                    (n - failed) / ((connected - start) / 1e9), n - failed, (connected - start) / 1e6,
                    (n - failed) / ((done - start) / 1e9), (done - start) / 1e6);
            System.out.println("""
                (a) rdma_create_id runs on rdmacm4j's dispatcher inside connect(); the API does not time it
                (b) no separate rdma_bind_addr: the -b address goes to rdma_resolve_addr as its source
                (c) the QP, CQ and channel are created between ADDR_RESOLVED and rdma_resolve_route: see resolve route""");
        }
        return failed;
    }

    /** Places one connection's steps on the common clock: origin + the history's elapsed times. */
    private static void timeline(List<HistoryEntry> history, long origin, long closeAt, long[][][] spans, int i) {
        long addr = at(history, "ADDR_RESOLVED"), route = at(history, "ROUTE_RESOLVED");
        long est = at(history, "ESTABLISHED"), disc = at(history, "DISCONNECTED");
        long end = history.getLast().phase().equals("CLOSED") ? history.getLast().elapsedNanos() : -1;
        long close = est < 0 ? -1 : closeAt - origin;   // close() was called at this point of the id's life
        put(spans[2], i, origin, 0, addr);
        put(spans[3], i, origin, addr, route);
        put(spans[5], i, origin, route, est);
        put(spans[6], i, origin, Math.max(close, est), disc);
        put(spans[7], i, origin, disc, end);
    }

    private static long at(List<HistoryEntry> history, String input) {
        return history.stream().filter(e -> e.input().startsWith(input)).mapToLong(HistoryEntry::elapsedNanos)
                .findFirst().orElse(-1);
    }

    private static void put(long[][] step, int i, long origin, long from, long to) {
        if (from >= 0 && to >= from) {
            step[i] = new long[] {origin + from, origin + to};
        }
    }

    /** cmtime's row: total ms (union of the connections' intervals), max ms, min us, us / conn. */
    private static void row(String name, String note, long[][] spans, int n) {
        long[][] s = Arrays.stream(spans).filter(x -> x != null).sorted((x, y) -> Long.compare(x[0], y[0]))
                .toArray(long[][]::new);
        if (s.length == 0) {
            System.out.printf("%-13s: %11s%11s%11s%11s%s%n", name, "-", "-", "-", "-", note == null ? "" : "  (" + note + ")");
            return;
        }
        long total = 0, max = 0, min = Long.MAX_VALUE, curStart = s[0][0], curEnd = s[0][1];
        for (long[] x : s) {
            max = Math.max(max, x[1] - x[0]);
            min = Math.min(min, x[1] - x[0]);
            if (x[0] > curEnd) {
                total += curEnd - curStart;
                curStart = x[0];
            }
            curEnd = Math.max(curEnd, x[1]);
        }
        total += curEnd - curStart;
        System.out.printf("%-13s: %11.2f%11.2f%11.2f%11.2f%n", name, total / 1e6, max / 1e6, min / 1e3,
                total / 1e3 / n);
    }
}
