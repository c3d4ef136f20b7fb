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
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.ProcessFootprint;
import org.rdmacm4j.it.support.RdmaResources;
import org.rdmacm4j.it.support.ReliabilityReport;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * Load: many live, idle connections on one {@link RdmaCm} (both ends in this JVM, so one "pair" is
 * two connected ids, two QPs and both message channels), opened in concurrent batches and stepped
 * up to {@code -Drdmacm4j.it.liveConnections} (CI: 500 pairs, i.e. 1,000 connections on the
 * RdmaCm; on demand 1,000, 2,000, 5,000, 10,000 pairs through {@code RDMACM4J_IT_JAVA_OPTS}).
 * {@code -Drdmacm4j.it.liveChannel} picks what each connection carries ({@link Channel}: the
 * default message channel, a small one, or none). Only the CI's configuration (500 pairs, default
 * channel) writes its table into docs/reliability.md; on-demand runs print theirs (lines starting
 * {@code TABLE}) for the document's hand-written part.
 * Before each batch the guest's MemAvailable is checked against {@link #MEMORY_RESERVE}: a run
 * that would exhaust the guest stops there, with that reason, instead of meeting the OOM killer.
 * At every step: Java heap after GC (MemoryMXBean), native memory (RSS minus committed heap),
 * file descriptors and the kernel's RDMA objects, per pair. If a step cannot be reached, the exact
 * failure that stopped it is reported (an honest ceiling, not a test failure: the aim is to find
 * it), and everything must still close back to rest.
 */
@SoftRoceTest
class LiveConnectionsIT {
    private static final int TARGET = Integer.getInteger("rdmacm4j.it.liveConnections", 500);
    private static final Channel CHANNEL = Channel.valueOf(
            System.getProperty("rdmacm4j.it.liveChannel", "default").toUpperCase(java.util.Locale.ROOT));
    private static final int BATCH = 100;
    /** Stop stepping up when the guest has less than this available: the honest ceiling, not an OOM kill. */
    private static final long MEMORY_RESERVE = 384L << 20;

    /** What each connection of the run carries. */
    enum Channel {
        /** The default message channel: 32 receive credits of 4 KiB each way. */
        DEFAULT(MessagingOptions.defaults(), "default message channel: 32 credits of 4 KiB each way"),
        /** A small channel: 2 credits of 64 bytes each way (the least a channel can be). */
        SMALL(new MessagingOptions(64, 2, 16), "small message channel: 2 credits of 64 bytes each way"),
        /** No message channel: the QP only (ConnectOptions.Builder.raw(), AcceptOptions.raw()). */
        RAW(null, "no message channel (raw)");

        final MessagingOptions messaging;
        final String description;

        Channel(MessagingOptions messaging, String description) {
            this.messaging = messaging;
            this.description = description;
        }

        ConnectOptions connectOptions() {
            var b = ConnectOptions.builder().timeout(Duration.ofSeconds(60));
            return (messaging == null ? b.raw() : b.messaging(messaging)).build();
        }

        AcceptOptions acceptOptions() {
            return messaging == null ? AcceptOptions.defaults().raw() : AcceptOptions.defaults().messaging(messaging);
        }
    }

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
                     .withAcceptTimeout(Duration.ofSeconds(60)), ConnectionHandler.none(), CHANNEL.acceptOptions())) {
            Sample base = sample(0);
            ConnectOptions opts = CHANNEL.connectOptions();
            List<RdmaConnection> servers = new ArrayList<>();
            steps:
            for (int step : steps) {
                while (clients.size() < step) {
                    long available = memAvailable();
                    if (available < MEMORY_RESERVE) {
                        stopped = "guest memory: " + (available >> 20) + " MiB available (guest: "
                                + (memTotal() >> 20) + " MiB) before the next batch of " + BATCH
                                + " pairs; stopped to keep a reserve of " + (MEMORY_RESERVE >> 20) + " MiB";
                        break steps;
                    }
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
            } else if (!clients.isEmpty() && (samples.isEmpty() || samples.getLast().pairs() < clients.size())) {
                Sample s = sample(clients.size());   // what was reached when it stopped
                samples.add(s);
                System.out.printf("FIGURE %d live pairs (stopped): heap %d B/pair, native %d B/pair, fds %d, %s%n",
                        s.pairs(), (s.heap() - base.heap()) / s.pairs(), native_(s, base) / s.pairs(), s.fds(),
                        s.kernel());
            }
            System.out.println("FIGURE stopped: " + stopped);
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

    private static long memAvailable() throws IOException {
        return meminfo("MemAvailable:");
    }

    private static long memTotal() throws IOException {
        return meminfo("MemTotal:");
    }

    private static long meminfo(String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith(key)) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IllegalStateException("no " + key + " in /proc/meminfo");
    }

    private static void report(Sample base, List<Sample> samples, String stopped, double closeSeconds) {
        StringBuilder rows = new StringBuilder();
        for (Sample s : samples) {
            rows.append("| ").append(s.pairs()).append(" | ").append((s.heap() - base.heap()) / s.pairs())
                    .append(" | ").append(native_(s, base) / s.pairs()).append(" | ").append(s.fds() - base.fds())
                    .append(" | ").append(s.kernel()).append(" |\n");
        }
        if (CHANNEL != Channel.DEFAULT || TARGET != 500) {
            // On demand: for the hand-written part of docs/reliability.md, not the suite's table.
            System.out.printf("TABLE live connections on demand: %s, target %d pairs, reached %d; %s; all closed in "
                    + "%.1f s%n", CHANNEL.description, TARGET, samples.isEmpty() ? 0 : samples.getLast().pairs(),
                    stopped == null ? "the target was reached" : "stopped by: " + stopped, closeSeconds);
            rows.toString().lines().forEach(line -> System.out.println("TABLE " + line));
            return;
        }
        ReliabilityReport.write("live-connections", """
                ## Live idle connections on one RdmaCm (`LiveConnectionsIT`)

                Pairs of connected ids (client and server both in the test JVM, default message channel:
                32 credits of 4 KiB each way), opened %d at a time, stepped up to a target of %d
                (`-Drdmacm4j.it.liveConnections`; the CI runs 500 pairs). Memory per pair is the growth over the
                empty `RdmaCm`: heap used after `System.gc()`, native = RSS minus committed heap.
                Reached: %d pairs; %s. All closed in %.1f s, back at rest. Larger runs, a small channel and
                raw connections (on demand) are in the hand-written section above.

                | live pairs | heap B/pair | native B/pair | file descriptors added | rxe objects (`rdma resource show`) |
                |---|---|---|---|---|
                %s""".formatted(BATCH, TARGET, samples.isEmpty() ? 0 : samples.getLast().pairs(),
                stopped == null ? "the target was reached" : "stopped by: " + stopped.replace("|", "\\|"),
                closeSeconds, rows));
    }

    private static Sample sample(int pairs) throws IOException {
        ProcessFootprint.collectGarbage();
        var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        String kernel = RdmaResources.current().byDevice().toString();
        return new Sample(pairs, heap.getUsed(), heap.getCommitted(), ProcessFootprint.rssBytes(),
                ProcessFootprint.openFds(), kernel);
    }
}
