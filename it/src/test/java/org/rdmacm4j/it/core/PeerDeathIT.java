package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.ChildJvm;
import org.rdmacm4j.it.support.CmIdTable;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * The peer process dies mid-stream (SIGKILL): every pending send fails with a typed rdmacm4j
 * exception, the handler hears about it, and the connection frees everything.
 */
@SoftRoceTest
class PeerDeathIT {

    /**
     * A cold JVM in the emulated guest can take a while to reach rdma_listen: up to 75 s. One wait
     * with that bound, not retries of a shorter one: a timed-out wait kills the process when it
     * collects its output (the retry loop here did that at 30 s, in the CI run of 2026-11-25).
     */
    private static void awaitPeerListening(ExternalProcess peer, int port) throws Exception {
        CmIdTable.awaitListening(peer, SoftRoce.SERVER_ADDR, port, Duration.ofSeconds(75));
    }

    @Test
    void peerKilledMidStreamFailsPendingSendsTypedAndFreesEverything() throws Exception {
        int port = 47000 + (int) (ProcessHandle.current().pid() % 1000);
        String repo = System.getProperty("user.dir");
        String cp = repo + "/it/target/test-classes:" + repo + "/it/target/classes:"
                + Files.readString(Path.of(repo, "it/target/it-classpath.txt")).trim();
        List<String> cmd = new ArrayList<>(ChildJvm.java());
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", cp, EchoPeer.class.getName(),
                CmFixtures.serverHost().getHostAddress(), Integer.toString(port)));
        try (ExternalProcess peer = ExternalProcess.start(cmd.toArray(String[]::new));
             RdmaCm cm = RdmaCm.open()) {
            awaitPeerListening(peer, port);
            var echoed = new AtomicInteger();
            var trouble = new CompletableFuture<String>();
            ConnectionHandler h = new ConnectionHandler() {
                @Override
                public void onMessage(RdmaConnection c, MemorySegment message) {
                    echoed.incrementAndGet();
                }

                @Override
                public void onDisconnected(RdmaConnection c) {
                    trouble.complete("disconnected");
                }

                @Override
                public void onError(RdmaConnection c, RdmaCmException e) {
                    trouble.complete("error: " + e.getClass().getSimpleName());
                }
            };
            // The peer is a cold JVM under TCG: its first accept can take several seconds.
            RdmaConnection c = await(cm.connect(CmFixtures.server(port),
                    ConnectOptions.builder().timeout(Duration.ofSeconds(60)).build(), h));
            byte[] payload = new byte[256];
            for (int i = 0; i < 50; i++) {
                await(c.send(payload));
            }
            org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT).until(() -> echoed.get() == 50);

            List<CompletableFuture<Void>> pending = new ArrayList<>();
            long killedAt = System.nanoTime();
            peer.sigkill();
            for (int i = 0; i < 2000 && !c.isClosed(); i++) {
                pending.add(c.send(payload));
            }
            String what = trouble.get(30, java.util.concurrent.TimeUnit.SECONDS);
            long heardAt = System.nanoTime();
            await(c.closeFuture());
            System.out.printf("FIGURE peer killed: handler heard \"%s\" after %.0f ms, connection freed after %.0f ms%n",
                    what, (heardAt - killedAt) / 1e6, (System.nanoTime() - killedAt) / 1e6);
            int failed = 0;
            for (CompletableFuture<Void> f : pending) {
                Throwable t = f.handle((v, e) -> e).get(30, java.util.concurrent.TimeUnit.SECONDS);
                if (t != null) {
                    Throwable cause = t instanceof java.util.concurrent.CompletionException ? t.getCause() : t;
                    assertThat(cause).as("a pending send fails with an rdmacm4j type").isInstanceOf(RdmaCmException.class);
                    failed++;
                }
            }
            System.out.println("FIGURE sends pending at the kill: " + pending.size() + ", failed typed: " + failed);
            assertThat(c.isClosed()).isTrue();
            peer.await(Duration.ofSeconds(10));
        }
    }
}
