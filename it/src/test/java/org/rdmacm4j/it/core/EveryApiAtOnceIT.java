package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RegisteredRegion;
import org.rdmacm4j.cm.core.RemoteRegion;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * Eight threads calling every public API of one {@link RdmaCm} at once for a bounded time:
 * connect + messages + RDMA write/read/atomics + close, connect + abort, connect to a rejecting
 * listener, listen + close, datagram open/resolve/send/close, statistics. Each operation's outcome
 * is checked (echoes counted, read-back compared, the reject typed); any other exception is
 * collected by type and fails the test, a thread that does not finish in time is a hang, the JVM
 * must report no deadlocked threads, and everything closes back to rest.
 */
@SoftRoceTest
class EveryApiAtOnceIT {
    private static final int THREADS = 8;
    private static final Duration BUDGET = Duration.ofSeconds(Long.getLong("rdmacm4j.it.everyApiSeconds", 20));
    private static final int SLICE = 256;   // each thread's part of the server's region

    private final Map<String, AtomicLong> done = new ConcurrentHashMap<>();
    private final Map<String, Throwable> unexpected = new ConcurrentHashMap<>();

    /** The client side of one connection: the server's advertised region, then the echoes. */
    private static final class Client implements ConnectionHandler {
        final CompletableFuture<RemoteRegion> region = new CompletableFuture<>();
        final AtomicInteger echoes = new AtomicInteger();

        @Override
        public void onMessage(RdmaConnection c, MemorySegment m) {
            if (!region.isDone()) {
                region.complete(RemoteRegion.fromBytes(m.toArray(ValueLayout.JAVA_BYTE)));
            } else {
                echoes.incrementAndGet();
            }
        }
    }

    @Test
    void eightThreadsCallingEveryApiAtOnce() throws Exception {
        try (RdmaCm cm = RdmaCm.builder().closeTimeout(Duration.ofSeconds(60)).build();
             Arena arena = Arena.ofShared()) {
            MemorySegment serverMemory = arena.allocate(THREADS * SLICE, 4096);
            List<RdmaConnection> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
            ConnectionHandler echo = new ConnectionHandler() {
                @Override
                public void onMessage(RdmaConnection c, MemorySegment m) {
                    c.send(m);
                }
            };
            RdmaListener acceptor = cm.listen(CmFixtures.server(0), ListenOptions.defaults().withBacklog(256),
                    r -> r.accept(echo).thenAccept(s -> {
                        accepted.add(s);
                        s.send(s.register(serverMemory).toRemote().toBytes());
                    }));
            RdmaListener rejector = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                    r -> r.reject("busy".getBytes()));
            DatagramHandler count = (endpoint, from, data) -> done.computeIfAbsent("datagram received",
                    k -> new AtomicLong()).incrementAndGet();
            DatagramEndpoint udServer = cm.openDatagram(address(SoftRoce.SERVER_ADDR, 0), DatagramOptions.defaults(),
                    count);
            int baseIds = cm.statistics().liveIds();

            long deadline = System.nanoTime() + BUDGET.toNanos();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> threads = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int id = t;
                    threads.add(pool.submit(() -> {
                        MemorySegment local = arena.allocate(SLICE, 64);
                        for (int i = id; System.nanoTime() < deadline; i++) {
                            String op = switch (i % 6) {
                                case 0 -> "connect, messages, write/read/atomics, close";
                                case 1 -> "connect, abort";
                                case 2 -> "connect to a rejecting listener";
                                case 3 -> "listen, close";
                                case 4 -> "datagram open, resolve, send, close";
                                default -> "statistics";
                            };
                            try {
                                switch (i % 6) {
                                    case 0 -> fullConnection(cm, acceptor, local, id);
                                    case 1 -> await(await(cm.connect(CmFixtures.target(acceptor), opts(),
                                            ConnectionHandler.none())).abort());
                                    case 2 -> {
                                        Throwable f = CmFixtures.failureOf(cm.connect(CmFixtures.target(rejector),
                                                opts(), ConnectionHandler.none()));
                                        if (!(f instanceof ConnectionRejectedException r)
                                                || r.reason() != ConnectionRejectedException.Reason.CONSUMER) {
                                            throw new AssertionError("expected a consumer reject, got " + f, f);
                                        }
                                    }
                                    case 3 -> await(cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                                            r -> r.reject(new byte[0])).close());
                                    case 4 -> datagram(cm, udServer);
                                    default -> {
                                        if (cm.statistics().liveIds() < baseIds) {
                                            throw new AssertionError("live ids below the base: " + cm.statistics());
                                        }
                                    }
                                }
                                done.computeIfAbsent(op, k -> new AtomicLong()).incrementAndGet();
                            } catch (Throwable e) {
                                unexpected.putIfAbsent(op + ": " + e.getClass().getName(), e);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : threads) {
                    f.get(BUDGET.toSeconds() + 60, TimeUnit.SECONDS);   // a thread stuck beyond that is a hang
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(ManagementFactory.getThreadMXBean().findDeadlockedThreads()).as("deadlocked threads").isNull();
            System.out.println("FIGURE every API at once, " + THREADS + " threads, " + BUDGET.toSeconds() + " s: "
                    + done);
            unexpected.forEach((k, e) -> e.printStackTrace(System.out));
            assertThat(unexpected).as("unexpected exceptions by operation and type").isEmpty();
            for (String op : List.of("connect, messages, write/read/atomics, close", "connect, abort",
                    "connect to a rejecting listener", "listen, close", "datagram open, resolve, send, close")) {
                assertThat(done.get(op)).as(op + " done at least once: " + done).isNotNull();
            }
            for (RdmaConnection s : accepted) {
                await(s.closeFuture());
            }
            await(udServer.close());
            await(rejector.close());
            await(acceptor.close());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cm.statistics().liveIds() == 0);
        }
    }

    private static ConnectOptions opts() {
        return ConnectOptions.builder().timeout(Duration.ofSeconds(60)).build();
    }

    private static void fullConnection(RdmaCm cm, RdmaListener acceptor, MemorySegment local, int id)
            throws Exception {
        Client handler = new Client();
        RdmaConnection c = await(cm.connect(CmFixtures.target(acceptor), opts(), handler));
        try {
            RemoteRegion remote = await(handler.region);
            for (int i = 0; i < 10; i++) {
                await(c.send(CheckedTraffic.message(i, 64)));
            }
            RegisteredRegion mine = c.register(local);
            long salt = System.nanoTime();
            local.set(ValueLayout.JAVA_LONG, 0, salt);
            await(c.write(mine, 0, remote, (long) id * SLICE, 8));
            local.set(ValueLayout.JAVA_LONG, 0, 0);
            await(c.read(mine, 0, remote, (long) id * SLICE, 8));
            if (local.get(ValueLayout.JAVA_LONG, 0) != salt) {
                throw new AssertionError("read back " + local.get(ValueLayout.JAVA_LONG, 0) + ", wrote " + salt);
            }
            long at = (long) id * SLICE + 128;
            long before = await(c.fetchAndAdd(remote, at, 1L));
            long swapped = await(c.compareAndSwap(remote, at, before + 1, 0L));
            if (swapped != before + 1) {
                throw new AssertionError("compare-and-swap saw " + swapped + ", expected " + (before + 1));
            }
            Awaitility.await().atMost(CmFixtures.WAIT).until(() -> handler.echoes.get() == 10);
        } finally {
            await(c.close());
        }
    }

    private static void datagram(RdmaCm cm, DatagramEndpoint server) throws Exception {
        DatagramEndpoint ep = cm.openDatagram(address(SoftRoce.CLIENT_ADDR, 0), DatagramOptions.defaults(),
                (endpoint, from, data) -> { });
        try {
            DatagramPeer peer = await(ep.resolve(address(SoftRoce.SERVER_ADDR, server.localAddress().getPort())));
            await(ep.send(peer, new byte[32]));
        } finally {
            await(ep.close());
        }
    }

    private static InetSocketAddress address(String host, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
