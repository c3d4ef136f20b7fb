package org.rdmacm4j.it.twohost;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.PeerUnresponsiveException;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.it.core.CheckedTraffic;
import org.rdmacm4j.it.support.ReliabilityReport;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * Role a of the two-host fault scenarios ({@code it/rig/run-two-hosts.sh}); role b is
 * {@link TwoHostPeer} on the other guest. Each scenario: a connection with a keepalive carries
 * checked traffic (echoed by b), then the fault; the survivor must fail the connection with a
 * typed error within the keepalive's bound, free everything (this host's counts are checked by
 * {@link SoftRoceTest}, b's by the rig), and new connections must work afterwards. The link
 * scenario runs first: the host death leaves no peer.
 */
@SoftRoceTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PeerFaultsTwoHost {
    private static final KeepaliveOptions KEEPALIVE = new KeepaliveOptions(Duration.ofMillis(200), 3);
    private static final Duration SLACK = Duration.ofMillis(1500);
    private static final int MESSAGES = 200;

    /** A connection to b with checked echo traffic and its first error. */
    private static final class Link {
        final CheckedTraffic.Receiver echoes = new CheckedTraffic.Receiver();
        final CompletableFuture<RdmaCmException> error = new CompletableFuture<>();
        volatile long errorAt;
        final CheckedTraffic.Sender sender = new CheckedTraffic.Sender();
        RdmaConnection connection;

        ConnectionHandler handler() {
            return new ConnectionHandler() {
                @Override
                public void onMessage(RdmaConnection c, MemorySegment m) {
                    echoes.onMessage(c, m);
                }

                @Override
                public void onError(RdmaConnection c, RdmaCmException e) {
                    errorAt = System.nanoTime();
                    error.complete(e);
                }
            };
        }

        void open(RdmaCm cm) throws Exception {
            connection = cm.connect(TwoHostFabric.address(TwoHostFabric.B, TwoHostFabric.PEER_PORT),
                    ConnectOptions.builder().keepalive(KEEPALIVE).build(), handler()).get(30, TimeUnit.SECONDS);
        }

        /** Sends {@code n} checked messages and waits until all came back in order and intact. */
        void exchange(int n) throws Exception {
            long before = sender.sent();
            sender.send(connection, n, 512);
            for (CompletableFuture<Void> f : sender.sends) {
                f.get(30, TimeUnit.SECONDS);
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> echoes.inOrder.get() == before + n);
            assertThat(echoes.outOfOrder.get() + echoes.corrupted.get()).as(echoes.describe()).isZero();
        }
    }

    /**
     * Host b boots beside this one and its JVM starts cold under TCG: wait (bounded) until it says
     * it is listening, then until it answers, retrying "no listener" and address errors (ARP while
     * b's NIC comes up). If it still does not answer, say what this host sees of the network.
     */
    @BeforeAll
    static void peerIsListening() throws Exception {
        TwoHostFabric.awaitPeerReady(Duration.ofSeconds(240));
        RetryPolicy patient = new RetryPolicy(1000, Duration.ofMillis(200), Duration.ofSeconds(1), 2, true, true,
                true, true, true);
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaConnection probe;
            try {
                probe = cm.connect(TwoHostFabric.address(TwoHostFabric.B, TwoHostFabric.PEER_PORT),
                        ConnectOptions.builder().retries(patient).timeout(Duration.ofSeconds(60)).build(),
                        ConnectionHandler.none()).get(70, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("host b said it was listening but did not answer within 60 s: " + e
                        + "\nwhat host a sees:\n" + TwoHostFabric.networkView(TwoHostFabric.B), e);
            }
            probe.close().get(30, TimeUnit.SECONDS);
        }
    }

    private static double waitForTypedFailure(Link l, long faultAt) throws Exception {
        RdmaCmException e = l.error.get(30, TimeUnit.SECONDS);
        double ms = (l.errorAt - faultAt) / 1e6;
        assertThat(e).isInstanceOf(PeerUnresponsiveException.class);
        assertThat(ms).as("detected within (misses + 1) x period + slack")
                .isLessThanOrEqualTo(KEEPALIVE.worstDetection().plus(SLACK).toMillis());
        l.connection.closeFuture().get(30, TimeUnit.SECONDS);
        return ms;
    }

    @Test
    @Order(1)
    void linkCutIsDetectedByTheKeepaliveAndAfterTheLinkIsBackNewConnectionsWork() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            Link before = new Link();
            before.open(cm);
            before.exchange(MESSAGES);

            long cutAt = System.nanoTime();
            TwoHostFabric.fault("link-down-b");
            double ms = waitForTypedFailure(before, cutAt);
            System.out.printf(Locale.ROOT, "FIGURE two-host link cut: detected after %.0f ms (bound %d ms)%n", ms,
                    KEEPALIVE.worstDetection().toMillis());
            TwoHostFabric.fault("link-up-b");

            Link after = new Link();
            after.open(cm);
            after.exchange(MESSAGES);
            after.connection.close().get(30, TimeUnit.SECONDS);
            ReliabilityReport.write("two-host-link-cut", "## Link cut, then restored (two hosts)\n\n"
                    + "Host a (192.0.2.1) connects to host b (192.0.2.2) over a QEMU socket netdev, with a keepalive "
                    + "of " + KEEPALIVE.period().toMillis() + " ms x " + KEEPALIVE.misses() + "; " + MESSAGES
                    + " checked messages (sequence number and CRC-32) are echoed; then b's link is cut (QEMU "
                    + "`set_link n0 off`). `PeerFaultsTwoHost`.\n\n"
                    + "| connections at fault time | outcome | detection | error | data lost | resources at rest | "
                    + "afterwards |\n|---|---|---|---|---|---|---|\n"
                    + String.format(Locale.ROOT, "| 1 | failed, as the keepalive policy says | %.0f ms (bound %d ms) "
                            + "| PeerUnresponsiveException | 0 (%d of %d echoed in order, intact) | host a: yes (b is killed by "
                            + "the next scenario, so its counts are not checked) | "
                            + "link restored: a new connection carried %d checked messages |%n", ms,
                    KEEPALIVE.worstDetection().toMillis(), before.echoes.inOrder.get(), before.sender.sent(),
                    MESSAGES));
        }
    }

    @Test
    @Order(2)
    void peerHostDeathIsDetectedByTheKeepaliveAndTheSurvivorKeepsWorking() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            Link l = new Link();
            l.open(cm);
            l.exchange(MESSAGES);

            long killedAt = System.nanoTime();
            TwoHostFabric.fault("kill-b");
            double ms = waitForTypedFailure(l, killedAt);
            System.out.printf(Locale.ROOT, "FIGURE two-host peer host death: detected after %.0f ms (bound %d ms)%n",
                    ms, KEEPALIVE.worstDetection().toMillis());

            // The peer is gone for good: the survivor's own listener and a new connection to it still work.
            var accepted = new CompletableFuture<RdmaConnection>();
            RdmaListener local = cm.listen(TwoHostFabric.address(TwoHostFabric.A, 0), ListenOptions.defaults(),
                    r -> r.accept(new ConnectionHandler() {
                        @Override
                        public void onMessage(RdmaConnection c, MemorySegment m) {
                            c.send(m);
                        }
                    }).thenAccept(accepted::complete));
            Link fresh = new Link();
            fresh.connection = cm.connect(TwoHostFabric.address(TwoHostFabric.A, local.localAddress().getPort()),
                    ConnectOptions.builder().keepalive(KEEPALIVE).build(), fresh.handler()).get(30, TimeUnit.SECONDS);
            fresh.exchange(100);
            fresh.connection.close().get(30, TimeUnit.SECONDS);
            accepted.get(30, TimeUnit.SECONDS).closeFuture().get(30, TimeUnit.SECONDS);
            local.close().get(30, TimeUnit.SECONDS);
            ReliabilityReport.write("two-host-peer-host-death", "## Peer host death (two hosts)\n\n"
                    + "As above, then host b's QEMU is killed (SIGKILL: no FIN, no DREQ, nothing on the wire). "
                    + "`PeerFaultsTwoHost`.\n\n"
                    + "| connections at fault time | outcome | detection | error | data lost | resources at rest | "
                    + "afterwards |\n|---|---|---|---|---|---|---|\n"
                    + String.format(Locale.ROOT, "| 1 | failed, as it must | %.0f ms (bound %d ms) | "
                            + "PeerUnresponsiveException | 0 (%d of %d echoed in order, intact) | yes, host a "
                            + "(b is dead) | a new connection on host a carried 100 checked messages |%n", ms,
                    KEEPALIVE.worstDetection().toMillis(), l.echoes.inOrder.get(), l.sender.sent()));
        }
    }
}
