package org.rdmacm4j.it.twohost;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.DeviceRemovedException;
import org.rdmacm4j.cm.core.KeepaliveOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.PeerUnresponsiveException;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestHandler;
import org.rdmacm4j.cm.statemachine.AsyncEventType;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.it.core.CheckedTraffic;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.ReliabilityReport;
import org.rdmacm4j.it.support.ResourcesAtRestExtension;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * Faults made on host b's own RDMA link, on demand ({@code RDMACM4J_TWO_HOST_CLASS=HostBLinkFaultsTwoHost
 * it/rig/run-two-hosts.sh}), with the helpers of {@link PeerFaultsTwoHost}: {@code ip link set eth0
 * down}/{@code up} inside host b, and {@code rdma link delete rxe0} on host b under its listener and a
 * live connection. Not in the CI class until each has passed a full two-host run; see
 * docs/reliability.md (hand-written part) for what stops them on the 6.1 kernel and rdma-core 44.
 */
@SoftRoceTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostBLinkFaultsTwoHost {
    private static final KeepaliveOptions KEEPALIVE = PeerFaultsTwoHost.KEEPALIVE;
    private static final int MESSAGES = PeerFaultsTwoHost.MESSAGES;
    private static final RetryPolicy PATIENT = PeerFaultsTwoHost.PATIENT;

    @BeforeAll
    static void peerIsListening() throws Exception {
        PeerFaultsTwoHost.peerIsListening();
    }

    /** b's GSI QP as `rdma res show` has it, and rxe0's received-packets counter (kernel evidence for the table). */
    private static final String B_GSI = "rdma res show qp | grep 'lqpn 1 ' | tr -s ' '; "
            + "echo rcvd_pkts=$(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts)";

    /**
     * {@code ip link set eth0 down} inside host b for 3 s (the kernel's own link, not QEMU's cable)
     * while 50 more messages are sent into the outage, then {@code up}. What the library owns:
     * a's connection ends typed (keepalive), b's too (its probe cannot be routed), nothing is lost,
     * both hosts free everything. The 6.1 kernel then needs a recovery step on b (see
     * docs/reliability.md): b's side sent its DREQ while eth0 was down, the send failed and rxe
     * left b's GSI QP (QP1) unable to receive, so b answers no REQ after up. This measures that
     * (a connect with a 5 s deadline, b's rxe0 receive counter before and after), then recovers
     * with {@code rdma link delete rxe0} and {@code rdma link add} on b, after which a new
     * connection to b must work.
     */
    @Test
    @Order(1)
    void linkDownThenUpInsideHostB() throws Exception {
        PeerFaultsTwoHost.Link l = new PeerFaultsTwoHost.Link();
        List<CompletableFuture<Void>> pending;
        String bDown;
        String probe;
        String gsiAfterProbe;
        String deleted;
        String restored;
        try (RdmaCm cm = RdmaCm.open()) {
            l.open(cm, TwoHostFabric.PEER_PORT, PATIENT);
            l.exchange(MESSAGES);
            int before = l.sender.sends.size();
            l.fault();
            CompletableFuture<String> remote = CompletableFuture.supplyAsync(() -> {
                try {
                    // the control channel is TCP over b's eth0 too: the answer comes after `up`
                    return TwoHostControl.ask("run ip link set eth0 down; sleep 3; ip link set eth0 up; "
                            + WAIT_ACTIVE + "; " + B_GSI, Duration.ofSeconds(60));
                } catch (IOException e) {
                    return "error: " + e;
                }
            });
            Thread.sleep(300);   // b's link is down by now (the command's round trip is milliseconds)
            l.sender.send(l.connection, 50, 512);   // into the outage: each must end, typed if it fails
            pending = List.copyOf(l.sender.sends.subList(before, l.sender.sends.size()));
            PeerFaultsTwoHost.End e = l.awaitEnd();
            assertThat(e.error()).as("%s", e).isInstanceOf(PeerUnresponsiveException.class);
            for (CompletableFuture<Void> f : pending) {
                try {
                    f.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException x) {
                    assertThat(x.getCause()).isInstanceOf(RdmaCmException.class);
                }
            }
            l.assertIntact();
            bDown = remote.get(70, TimeUnit.SECONDS);
            System.out.println("host b after up: " + bDown);
            assertThat(bDown).startsWith("exit 0").contains("state ACTIVE");

            // Is b reachable without help? One connect, 5 s, no retries: measured, not assumed.
            long t0 = System.nanoTime();
            try {
                PeerFaultsTwoHost.Link p = new PeerFaultsTwoHost.Link();
                p.connection = cm.connect(TwoHostFabric.address(TwoHostFabric.B, TwoHostFabric.PEER_PORT),
                        ConnectOptions.builder().retries(RetryPolicy.never()).timeout(Duration.ofSeconds(5)).build(),
                        p.handler()).get(15, TimeUnit.SECONDS);
                p.connection.close().get(30, TimeUnit.SECONDS);
                probe = String.format(Locale.ROOT, "a connect to b right after up was answered (%.0f ms)",
                        (System.nanoTime() - t0) / 1e6);
            } catch (ExecutionException x) {
                assertThat(x.getCause()).isInstanceOf(RdmaCmException.class);
                probe = String.format(Locale.ROOT, "a connect to b right after up got %s after %.0f ms",
                        x.getCause().getClass().getSimpleName(), (System.nanoTime() - t0) / 1e6);
            }
            gsiAfterProbe = TwoHostControl.ask("run " + B_GSI, Duration.ofSeconds(30));
            System.out.println("host b: " + probe + "; b then: " + gsiAfterProbe);

            // Recovery (the kernel's, not the library's): rxe0 deleted and added back on b.
            deleted = TwoHostControl.ask("link-delete", Duration.ofSeconds(90));
            assertThat(deleted).startsWith("deleted in");
            restored = TwoHostControl.ask("link-restore", Duration.ofSeconds(90));
            assertThat(restored).startsWith("restored");
            PeerFaultsTwoHost.newConnectionToBWorks(cm);
        }
        String b = PeerFaultsTwoHost.assertBothHostsAtRest();
        PeerFaultsTwoHost.End e = l.end.get();
        long acked = pending.stream().filter(f -> !f.isCompletedExceptionally()).count();
        System.out.printf(Locale.ROOT, "FIGURE two-host ip link down on b: %s after %.0f ms; async events on a %s; "
                + "%s; recovery: %s, %s; history %s%n", e.how(), e.afterMs(), l.asyncEvents, probe, deleted, restored,
                l.connection.history());
        PeerFaultsTwoHost.table("two-host-link-down-b", "`ip link set eth0 down`, then `up`, inside host b (two hosts)",
                "Host a is connected to host b's echo server (keepalive " + PeerFaultsTwoHost.keepalive() + ", checked traffic); "
                        + "host b takes its own eth0 down for 3 s (the kernel's link, not QEMU's cable) while 50 more "
                        + "messages are sent into the outage; then up. After up: " + probe + " (b's GSI QP and rxe0 "
                        + "receive counter: before the connect `" + TwoHostControl.oneLine(bDown.replaceFirst(".*state ACTIVE[^|]*\\| ", ""))
                        + "`, after it `" + gsiAfterProbe.replaceFirst("^exit 0: ", "") + "`). Recovery on b, "
                        + "as the 6.1 kernel needs it (see the hand-written section): `rdma link delete rxe0` ("
                        + deleted + ", b's listener heard DEVICE_REMOVAL) and `rdma link add rxe0 type rxe netdev "
                        + "eth0` (" + restored + "). Host b: " + b + ".",
                List.of(new PeerFaultsTwoHost.Row("1", "failed, as the keepalive policy says (down longer than its bound)", e,
                        PeerFaultsTwoHost.dataLost(l) + String.format(Locale.ROOT, "; of the 50 sent into the outage %d were "
                                + "acknowledged, %d failed with a typed error", acked, 50 - acked),
                        "after rxe0 was re-added on b: a new connection carried " + MESSAGES + " checked messages")));
    }

    /** Waits (bounded, 20 s) until rxe0's port is ACTIVE again and prints it. */
    private static final String WAIT_ACTIVE = "for i in $(seq 1 100); do rdma link show rxe0/1 | grep -q 'state ACTIVE' "
            + "&& break; sleep 0.2; done; rdma link show rxe0/1";

    @Test
    @Order(2)
    void linkDeleteOnHostBUnderItsListenerAndALiveConnection() throws Exception {
        PeerFaultsTwoHost.Link l = new PeerFaultsTwoHost.Link();
        String deleted;
        String restored = "not restored";
        try (RdmaCm cm = RdmaCm.open()) {
            l.open(cm, TwoHostFabric.PEER_PORT, PATIENT);
            l.exchange(MESSAGES);
            try {
                l.fault();
                deleted = TwoHostControl.ask("link-delete", Duration.ofSeconds(90));
                assertThat(deleted).startsWith("deleted in");
                PeerFaultsTwoHost.End e = l.awaitEnd();
                assertThat(e.how()).isIn("DISCONNECTED", PeerUnresponsiveException.class.getSimpleName());
            } finally {
                restored = TwoHostControl.ask("link-restore", Duration.ofSeconds(90));
                assertThat(restored).startsWith("restored");
            }
            PeerFaultsTwoHost.newConnectionToBWorks(cm);
        }
        String b = PeerFaultsTwoHost.assertBothHostsAtRest();
        PeerFaultsTwoHost.End e = l.end.get();
        System.out.printf(Locale.ROOT, "FIGURE two-host rdma link delete on b: %s; a saw %s after %.0f ms%n", deleted,
                e.how(), e.afterMs());
        PeerFaultsTwoHost.table("two-host-link-delete-b", "`rdma link delete rxe0` on host b under its listener and a live connection "
                        + "(two hosts)",
                "Host a is connected to host b's echo server (checked traffic); host b deletes its rxe0 (with a "
                        + "helper device, see `RdmaLinks`): its listener and connection hear DEVICE_REMOVAL; then b "
                        + "closes its `RdmaCm` before librdmacm is made to let go of rxe0 (otherwise librdmacm can "
                        + "self-deadlock, see the hand-written part): " + deleted + ". Once rxe0 is added back ("
                        + restored + ") b listens again on a new `RdmaCm`. Host a, whose device is fine, detects the "
                        + "loss from the wire. Host b: " + b + ".",
                List.of(new PeerFaultsTwoHost.Row("1", "failed on a as the keepalive policy says; DEVICE_REMOVAL on b", e, PeerFaultsTwoHost.dataLost(l),
                        "rxe0 back on b: a new connection carried " + MESSAGES + " checked messages")));
    }

}
