package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * Many connections on one RdmaCm against real rxe (client and server in this JVM): sequential
 * connect/close cycles, a burst of concurrent connects, and threads connecting and closing at once.
 * Figures are printed for the note (TCG guest: slow, compare with cmtime in the same run).
 */
@SoftRoceTest
class ScaleIT {

    private static void cycle(RdmaCm cm, CmFixtures.AcceptingServer server) throws Exception {
        RdmaConnection c = await(cm.connect(server.target(), ConnectionHandler.none()));
        RdmaConnection s = server.nextAccepted();
        await(c.close());
        await(s.closeFuture());
    }

    /** 1000 cycles; the class's 2-minute bound is raised for this one test (measured rate below). */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void thousandSequentialConnectCloseCycles() throws Exception {
        try (RdmaCm cm = RdmaCm.open(); var server = new CmFixtures.AcceptingServer(cm)) {
            for (int i = 0; i < 20; i++) {
                cycle(cm, server);   // warm-up (JIT, librdmacm caches)
            }
            int n = 1000;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                cycle(cm, server);
                if ((i + 1) % 100 == 0) {
                    System.out.printf("  %d cycles, %.1f ms/cycle so far%n", i + 1,
                            (System.nanoTime() - t0) / 1e6 / (i + 1));
                }
            }
            double total = (System.nanoTime() - t0) / 1e9;
            System.out.printf("FIGURE 1000 sequential connect/accept/close cycles: %.1f s, %.2f ms per cycle%n",
                    total, total * 1000 / n);
            assertThat(cm.statistics().connectsSucceeded()).isEqualTo(n + 20);
            assertThat(cm.statistics().accepts()).isEqualTo(n + 20);
            assertThat(server.acceptFailures).isEmpty();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cm.statistics().liveIds() == 1);
        }
    }

    @Test
    void fiveHundredConcurrentConnects() throws Exception {
        int n = 500;
        try (RdmaCm cm = RdmaCm.builder().closeTimeout(Duration.ofSeconds(60)).build();
             var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults().withBacklog(1024)
                     .withAcceptTimeout(Duration.ofSeconds(60)), ConnectionHandler.none(), AcceptOptions.defaults())) {
            cycle(cm, server);   // warm-up
            ConnectOptions opts = ConnectOptions.builder().timeout(Duration.ofSeconds(90)).build();
            long t0 = System.nanoTime();
            List<CompletableFuture<RdmaConnection>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                fs.add(cm.connect(server.target(), opts, ConnectionHandler.none()));
            }
            CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).get(100, TimeUnit.SECONDS);
            double up = (System.nanoTime() - t0) / 1e9;
            List<RdmaConnection> servers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                servers.add(server.nextAccepted());
            }
            long t1 = System.nanoTime();
            List<CompletableFuture<Void>> closes = new ArrayList<>();
            for (var f : fs) {
                closes.add(f.join().close());
            }
            CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(100, TimeUnit.SECONDS);
            for (RdmaConnection s : servers) {
                await(s.closeFuture());
            }
            double down = (System.nanoTime() - t1) / 1e9;
            System.out.printf("FIGURE %d concurrent connects: all established in %.2f s; all closed in %.2f s; stats %s%n",
                    n, up, down, cm.statistics());
            assertThat(cm.statistics().connectsSucceeded()).isEqualTo(n + 1);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cm.statistics().liveIds() == 1);
        }
    }

    @Test
    void eightThreadsConnectingAndClosingAtOnce() throws Exception {
        int threads = 8;
        int perThread = 25;
        try (RdmaCm cm = RdmaCm.open(); var server = new CmFixtures.AcceptingServer(cm)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                long t0 = System.nanoTime();
                List<Future<Integer>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    final int id = t;
                    results.add(pool.submit(() -> {
                        for (int i = 0; i < perThread; i++) {
                            RdmaConnection c = await(cm.connect(server.target(), ConnectOptions.builder()
                                    .timeout(Duration.ofSeconds(30)).build(), ConnectionHandler.none()));
                            if ((i + id) % 2 == 0) {
                                await(c.close());
                            } else {
                                await(c.abort());
                            }
                        }
                        return perThread;
                    }));
                }
                int done = 0;
                for (Future<Integer> r : results) {
                    done += r.get(110, TimeUnit.SECONDS);
                }
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("FIGURE %d threads x %d connect/close: %.1f s (%.1f ms per connection)%n",
                        threads, perThread, s, s * 1000 / done);
                assertThat(done).isEqualTo(threads * perThread);
            } finally {
                pool.shutdownNow();
            }
            // Each client closes as soon as its connect completes, without waiting for the server
            // end: a few server ends may legitimately never establish (see settle).
            List<RdmaConnection> accepted = server.settle(threads * perThread);
            for (RdmaConnection s : accepted) {
                await(s.closeFuture());
            }
            System.out.printf("FIGURE server ends: %d accepted, %d disconnected by the client before established%n",
                    accepted.size(), server.acceptFailures.size());
            assertThat(cm.statistics().connectsSucceeded()).isEqualTo(threads * perThread);
            assertThat(cm.statistics().requestsReceived()).isEqualTo(threads * perThread);
            assertThat(cm.statistics().accepts()).isEqualTo(accepted.size());
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cm.statistics().liveIds() == 1);
        }
    }
}
