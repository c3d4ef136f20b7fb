package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.RdmaResources;
import org.rdmacm4j.it.support.ReliabilityReport;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * Load: many live, idle connections on one {@link RdmaCm} (both ends in this JVM, so one "pair" is
 * two connected ids, two QPs and both message channels), opened in concurrent batches and stepped
 * up to {@code -Drdmacm4j.it.liveConnections} (CI: 500 pairs, i.e. 1,000 connections on the
 * RdmaCm; on demand 1,000, 2,000, 5,000, 10,000 pairs through {@code RDMACM4J_IT_JAVA_OPTS}).
 * At every step: Java heap after GC (MemoryMXBean), native memory (RSS minus committed heap),
 * file descriptors and the kernel's RDMA objects, per pair. If a step cannot be reached, the exact
 * failure that stopped it is reported (an honest ceiling, not a test failure: the aim is to find
 * it), and everything must still close back to rest.
 */
@SoftRoceTest
class LiveConnectionsIT {
    private static final int TARGET = Integer.getInteger("rdmacm4j.it.liveConnections", 500);
    private static final int BATCH = 100;

    private record Sample(int pairs, long heap, long committed, long rss, long fds, String kernel) { }

    @Test
    @Timeout(value = 1800, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void liveIdleConnectionsSteppedUpToTheTarget() throws Exception {
        List<Integer> steps = new ArrayList<>(Stream.of(1000, 2000, 5000, 10000).filter(s -> s < TARGET).toList());
        steps.add(TARGET);
        List<RdmaConnection> clients = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        String stopped = null;
        long t0 = System.nanoTime();
        try (RdmaCm cm = RdmaCm.builder().closeTimeout(Duration.ofSeconds(120)).build();
             var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults().withBacklog(1024)
                     .withAcceptTimeout(Duration.ofSeconds(60)), ConnectionHandler.none(), AcceptOptions.defaults())) {
            Sample base = sample(0);
            ConnectOptions opts = ConnectOptions.builder().timeout(Duration.ofSeconds(60)).build();
            List<RdmaConnection> servers = new ArrayList<>();
            steps:
            for (int step : steps) {
                while (clients.size() < step) {
                    int n = Math.min(BATCH, step - clients.size());
                    List<CompletableFuture<RdmaConnection>> fs = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        fs.add(cm.connect(server.target(), opts, ConnectionHandler.none()));
                    }
                    for (var f : fs) {
                        try {
                            clients.add(f.get(90, TimeUnit.SECONDS));
                        } catch (java.util.concurrent.ExecutionException e) {
                            if (stopped == null) {
                                stopped = "connect " + (clients.size() + 1) + " failed: " + e.getCause();
                            }
                        }
                    }
                    while (servers.size() < clients.size()) {
                        servers.add(server.nextAccepted());
                    }
                    if (stopped != null) {
                        break steps;
                    }
                }
                Sample s = sample(clients.size());
                samples.add(s);
                System.out.printf("FIGURE %d live pairs after %.0f s: heap %d B/pair, native %d B/pair, fds %d, %s%n",
                        s.pairs(), (System.nanoTime() - t0) / 1e9, (s.heap() - base.heap()) / s.pairs(),
                        native_(s, base) / s.pairs(), s.fds(), s.kernel());
            }
            if (stopped == null) {
                assertThat(clients).hasSize(TARGET);
            }
            assertThat(server.acceptFailures).as("accept failures").isEmpty();
            long tc = System.nanoTime();
            List<CompletableFuture<Void>> closes = new ArrayList<>();
            for (RdmaConnection c : clients) {
                closes.add(c.close());
            }
            CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
            for (RdmaConnection s : servers) {
                await(s.closeFuture());
            }
            double closeSeconds = (System.nanoTime() - tc) / 1e9;
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> cm.statistics().liveIds() == 1);
            report(base, samples, stopped, closeSeconds);
        }
        assertThat(samples).as("at least the first step reached; stopped: " + stopped).isNotEmpty();
    }

    private static long native_(Sample s, Sample base) {
        return (s.rss() - s.committed()) - (base.rss() - base.committed());
    }

    private static void report(Sample base, List<Sample> samples, String stopped, double closeSeconds) {
        StringBuilder rows = new StringBuilder();
        for (Sample s : samples) {
            rows.append("| ").append(s.pairs()).append(" | ").append((s.heap() - base.heap()) / s.pairs())
                    .append(" | ").append(native_(s, base) / s.pairs()).append(" | ").append(s.fds() - base.fds())
                    .append(" | ").append(s.kernel()).append(" |\n");
        }
        ReliabilityReport.write("live-connections", """
                ## Live idle connections on one RdmaCm (`LiveConnectionsIT`)

                Pairs of connected ids (client and server both in the test JVM, default message channel:
                32 credits of 4 KiB each way), opened %d at a time, stepped up to a target of %d
                (`-Drdmacm4j.it.liveConnections`; the CI runs 500 pairs). Memory per pair is the growth over the
                empty `RdmaCm`: heap used after `System.gc()`, native = RSS minus committed heap.
                Reached: %d pairs; %s. All closed in %.1f s, back at rest.

                | live pairs | heap B/pair | native B/pair | file descriptors added | rxe objects (`rdma resource show`) |
                |---|---|---|---|---|
                %s""".formatted(BATCH, TARGET, samples.isEmpty() ? 0 : samples.getLast().pairs(),
                stopped == null ? "the target was reached" : "stopped by: " + stopped.replace("|", "\\|"),
                closeSeconds, rows));
    }

    private static Sample sample(int pairs) throws IOException {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long rss = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        long fds;
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            fds = s.count();
        }
        String kernel = RdmaResources.current().byDevice().toString();
        return new Sample(pairs, heap.getUsed(), heap.getCommitted(), rss, fds, kernel);
    }
}
