package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RegisteredRegion;
import org.rdmacm4j.cm.core.RemoteRegion;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * Figures for one connection in the same guest session as rdma-core's tools: message rate and
 * RDMA WRITE bandwidth through rdmacm4j, then {@code ib_write_bw -R} and a timed {@code rping}.
 * Printed as FIGURE lines for the notes and benchmarks; nothing here asserts a speed (these machines
 * are shared and the guest is emulated), only that every run completed and moved every byte.
 */
@SoftRoceTest
class DataPathFiguresIT {
    private static final int MESSAGES = 20_000;
    private static final int WRITES = 2_000;
    private static final int WRITE_SIZE = 65_536;

    @Test
    void messageRateAndWriteBandwidthBesideTheCTools() throws Exception {
        try (RdmaCm cm = RdmaCm.open(); Arena arena = Arena.ofShared()) {
            MessagingOptions options = new MessagingOptions(64, 64, MESSAGES);
            var received = new AtomicLong();
            ConnectionHandler counting = new ConnectionHandler() {
                @Override
                public void onMessage(RdmaConnection c, MemorySegment message) {
                    received.incrementAndGet();
                }
            };
            MemorySegment target = arena.allocate(WRITE_SIZE, 4096);
            var advertised = new CompletableFuture<RemoteRegion>();
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> r.accept(counting,
                    AcceptOptions.defaults().messaging(options)).thenAccept(s -> advertised.complete(
                    s.register(target).toRemote())));
            RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.builder().messaging(options)
                    .build(), ConnectionHandler.none()));

            // Message rate: 64-byte messages, as many in flight as the credits allow.
            MemorySegment message = arena.allocate(64);
            long t0 = System.nanoTime();
            CompletableFuture<Void> last = null;
            for (int i = 0; i < MESSAGES; i++) {
                last = c.send(message);
            }
            await(last);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> received.get() == MESSAGES);
            double rate = MESSAGES / ((System.nanoTime() - t0) / 1e9);

            // RDMA WRITE bandwidth: 64 KiB writes, 16 in flight.
            RemoteRegion remote = await(advertised);
            RegisteredRegion local = c.register(arena.allocate(WRITE_SIZE, 4096));
            long t1 = System.nanoTime();
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < WRITES; i++) {
                writes.add(c.write(local, 0, remote, 0, WRITE_SIZE));
                if (writes.size() == 64) {
                    for (CompletableFuture<Void> w : writes) {
                        await(w);
                    }
                    writes.clear();
                }
            }
            for (CompletableFuture<Void> w : writes) {
                await(w);
            }
            double mbps = (double) WRITES * WRITE_SIZE / ((System.nanoTime() - t1) / 1e9) / 1e6;
            System.out.printf("FIGURE rdmacm4j: %d 64-byte messages at %.0f msg/s; %d RDMA WRITEs of 64 KiB at %.1f MB/s%n",
                    MESSAGES, rate, WRITES, mbps);
            local.close();
            await(c.close());
            await(l.close());
        }

        // The same guest, rdma-core's tools: ib_write_bw over rdma_cm, and rping's ping rate.
        int port = 18515;
        try (ExternalProcess server = ExternalProcess.start("ib_write_bw", "-R", "-s", "65536",
                "-n", Integer.toString(WRITES), "-p", Integer.toString(port))) {
            Thread.sleep(2000);
            var client = ExternalProcess.run(Duration.ofSeconds(120), "ib_write_bw", "-R", "-s", "65536",
                    "-n", Integer.toString(WRITES), "-p", Integer.toString(port), CmFixtures.serverHost().getHostAddress());
            System.out.println("FIGURE ib_write_bw -R -s 65536 -n " + WRITES + ":\n" + client.output());
            assertThat(client.exitCode()).as("%s", client).isZero();
            server.await(Duration.ofSeconds(30));
        }
        int rpingPort = 7490;
        try (ExternalProcess server = ExternalProcess.start("rping", "-s", "-a", CmFixtures.serverHost().getHostAddress(),
                "-p", Integer.toString(rpingPort), "-C", "2000", "-S", "64")) {
            CmFixtures.awaitToolListening(server, rpingPort);
            long t2 = System.nanoTime();
            var client = ExternalProcess.run(Duration.ofSeconds(120), "rping", "-c", "-a",
                    CmFixtures.serverHost().getHostAddress(), "-p", Integer.toString(rpingPort), "-C", "2000", "-S", "64");
            double seconds = (System.nanoTime() - t2) / 1e9;
            System.out.printf("FIGURE rping -C 2000 -S 64: %.1f s including connect and teardown, %.0f pings/s "
                    + "(each ping: SEND, RDMA READ, SEND, RDMA WRITE, SEND)%n", seconds, 2000 / seconds);
            assertThat(client.exitCode()).as("%s", client).isZero();
            server.await(Duration.ofSeconds(30));
        }
    }
}
