package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RequestHandler;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.ReliabilityReport;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.cm.CmDevices;

/**
 * ADDR_CHANGE for real: the kernel's {@code cma_netdev_callback} reports it on
 * NETDEV_BONDING_FAILOVER to every id bound to the bond whose recorded source MAC differs from
 * the bond's new one. So: an active-backup bond with {@code fail_over_mac active} (the bond takes
 * the new active slave's MAC; with the default {@code none} the MAC stays and the kernel reports
 * nothing) over two veths, soft-RoCE on the bond, a listener and a live connection with checked
 * traffic on it; then the active slave changes. The listener must report the change and keep
 * serving (re-listening), the connection must report it and close (the default policy), and a new
 * connection must work. Everything is removed again, so later classes are unaffected.
 */
@SoftRoceTest
class BondFailoverIT {
    private static final String BOND = "rdmabond0";
    private static final String DEVICE = "rxe_bond";
    private static final String SERVER = "198.51.100.1";
    private static final String CLIENT = "198.51.100.3";
    private static final RetryPolicy PATIENT = new RetryPolicy(100, Duration.ofMillis(200), Duration.ofSeconds(1), 2,
            true, true, true, true, true);

    @Test
    void activeSlaveChangeIsAnAddrChangeTheListenerServesOnTheConnectionCloses() throws Exception {
        try {
            sh(Duration.ofSeconds(60), modprobe() + " && " + String.join(" && ",
                    "ip link add " + BOND + " type bond mode active-backup fail_over_mac active miimon 100",
                    "ip link add vbond0 type veth peer name vbond0p", "ip link add vbond1 type veth peer name vbond1p",
                    "ip link set vbond0 master " + BOND, "ip link set vbond1 master " + BOND,
                    "ip link set vbond0p up", "ip link set vbond1p up", "ip link set " + BOND + " up",
                    "ip addr add " + SERVER + "/24 dev " + BOND, "ip addr add " + CLIENT + "/24 dev " + BOND,
                    "rdma link add " + DEVICE + " type rxe netdev " + BOND,
                    "for i in $(seq 1 100); do rdma link show " + DEVICE + "/1 | grep -q 'state ACTIVE' "
                            + "&& [ -n \"$(cat /sys/class/net/" + BOND + "/bonding/active_slave)\" ] && exit 0; "
                            + "sleep 0.2; done; exit 1"));
            failover();
        } finally {
            tearDown();
        }
    }

    private void failover() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        var listenerChanged = new CompletableFuture<Long>();
        try (RdmaCm cm = RdmaCm.open()) {
            var serverSide = new CopyOnWriteArrayList<RdmaConnection>();
            RdmaListener listener = cm.listen(new InetSocketAddress(InetAddress.getByName(SERVER), 0),
                    ListenOptions.defaults(), new RequestHandler() {
                        @Override
                        public void onRequest(ConnectionRequest r) {
                            r.accept(recorder("server", events, null)).thenAccept(serverSide::add);
                        }

                        @Override
                        public void onAddressChanged(RdmaListener l) {
                            events.add("listener:addr-change");
                            listenerChanged.complete(System.nanoTime());
                        }
                    });
            InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(SERVER),
                    listener.localAddress().getPort());
            var receiver = new CheckedTraffic.Receiver();
            var clientChanged = new CompletableFuture<Long>();
            RdmaConnection client = await(cm.connect(target, ConnectOptions.builder()
                    .source(new InetSocketAddress(InetAddress.getByName(CLIENT), 0)).build(),
                    recorder("client", events, new Echoed(receiver, clientChanged))));
            var sender = new CheckedTraffic.Sender();
            sender.send(client, 100, 256);
            for (CompletableFuture<Void> f : sender.sends) {
                await(f);
            }
            Awaitility.await().atMost(CmFixtures.WAIT).until(() -> receiver.inOrder.get() == 100);

            String before = sh(Duration.ofSeconds(10), "cat /sys/class/net/" + BOND + "/bonding/active_slave; "
                    + "cat /sys/class/net/" + BOND + "/address").strip();
            String other = before.startsWith("vbond0") ? "vbond1" : "vbond0";
            long t0 = System.nanoTime();
            sh(Duration.ofSeconds(10), "ip link set " + BOND + " type bond active_slave " + other);
            String after = sh(Duration.ofSeconds(10), "cat /sys/class/net/" + BOND + "/bonding/active_slave; "
                    + "cat /sys/class/net/" + BOND + "/address").strip();

            long listenerMs;
            long clientMs;
            try {
                listenerMs = (listenerChanged.get(20, TimeUnit.SECONDS) - t0) / 1_000_000;
                clientMs = (clientChanged.get(20, TimeUnit.SECONDS) - t0) / 1_000_000;
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("no ADDR_CHANGE within 20 s of the failover (" + before + " -> " + after
                        + "); events " + events + "; listener history " + listener.history() + "; the kernel said:\n"
                        + ExternalProcess.run(Duration.ofSeconds(10), "sh", "-c", "dmesg | tail -n 25").output(), e);
            }
            await(client.closeFuture());
            Awaitility.await().atMost(CmFixtures.WAIT).until(() -> serverSide.stream().allMatch(RdmaConnection::isClosed));
            assertThat(receiver.outOfOrder.get() + receiver.corrupted.get()).as(receiver.describe()).isZero();
            assertThat(events).contains("client:addr-change", "client:closed", "server:closed");
            assertTypedFailure(client.send(CheckedTraffic.message(-1, 64)));

            // The listener re-listens (after its backoff) and serves a new connection through the new slave.
            assertThat(listener.isClosed()).isFalse();
            var again = new CheckedTraffic.Receiver();
            RdmaConnection fresh = cm.connect(target, ConnectOptions.builder().retries(PATIENT)
                    .timeout(Duration.ofSeconds(30)).source(new InetSocketAddress(InetAddress.getByName(CLIENT), 0))
                    .build(), again).get(40, TimeUnit.SECONDS);
            var s2 = new CheckedTraffic.Sender();
            s2.send(fresh, 100, 256);
            for (CompletableFuture<Void> f : s2.sends) {
                await(f);
            }
            Awaitility.await().atMost(CmFixtures.WAIT).until(() -> again.inOrder.get() == 100);
            await(fresh.close());
            System.out.printf(Locale.ROOT, "FIGURE bond failover (%s -> %s): listener ADDR_CHANGE after %d ms, "
                    + "connection after %d ms; events %s; listener history %s%n", before.replace('\n', ' '),
                    after.replace('\n', ' '), listenerMs, clientMs, events, listener.history());
            assertThat(listener.history().toString()).contains("ADDR_CHANGE");
            ReliabilityReport.write("bond-failover", "## ADDR_CHANGE: bonding failover (one host)\n\n"
                    + "soft-RoCE on an active-backup bond (`fail_over_mac active`) over two veths; a listener and a "
                    + "connection (100 checked messages echoed) on the bond's addresses; then `ip link set " + BOND
                    + " type bond active_slave <the other>`. The kernel's `cma_netdev_callback` reports ADDR_CHANGE "
                    + "to the ids bound to the bond (only because the bond's MAC changes: with the default "
                    + "`fail_over_mac none` it reports nothing). `BondFailoverIT`.\n\n"
                    + "| connections at fault time | outcome | detection | how it ended | data lost | "
                    + "resources at rest | afterwards |\n|---|---|---|---|---|---|---|\n"
                    + String.format(Locale.ROOT, "| 1 (both ends on this host) and a listener | listener: "
                            + "`onAddressChanged`, re-listened; connection: `onAddressChanged`, then closed (the "
                            + "default policy) | listener %d ms, connection %d ms | ADDR_CHANGE | 0 (all 100 "
                            + "acknowledged echoed in order, intact) | yes | the re-listened listener served a new "
                            + "connection (100 checked messages) through the new slave |%n", listenerMs, clientMs));
        }
    }

    /** The client's echo check and when its ADDR_CHANGE came. */
    private record Echoed(CheckedTraffic.Receiver receiver, CompletableFuture<Long> changed) { }

    private static ConnectionHandler recorder(String tag, List<String> events, Echoed client) {
        return new ConnectionHandler() {
            @Override
            public void onMessage(RdmaConnection c, MemorySegment m) {
                if (client == null) {
                    c.send(m);   // the server echoes
                } else {
                    client.receiver().onMessage(c, m);
                }
            }

            @Override
            public void onAddressChanged(RdmaConnection c) {
                events.add(tag + ":addr-change");
                if (client != null) {
                    client.changed().complete(System.nanoTime());
                }
            }

            @Override
            public void onDisconnected(RdmaConnection c) {
                events.add(tag + ":disconnected");
            }

            @Override
            public void onError(RdmaConnection c, RdmaCmException e) {
                events.add(tag + ":error " + e.getClass().getSimpleName());
            }

            @Override
            public void onClosed(RdmaConnection c) {
                events.add(tag + ":closed");
            }
        };
    }

    private static void assertTypedFailure(CompletableFuture<Void> f) throws Exception {
        Throwable t = CmFixtures.failureOf(f);
        assertThat(t).isInstanceOf(RdmaCmException.class);
    }

    /** The rig's module tree in the guest (guest-setup.sh exports it); a host with RDMA has its own. */
    private static String modprobe() {
        String tree = System.getenv("RIG_KTREE");
        String version = System.getenv("RIG_KVER");
        return tree == null || version == null ? "modprobe bonding max_bonds=0"
                : "modprobe -d '" + tree + "' -S '" + version + "' bonding max_bonds=0";
    }

    private static String sh(Duration deadline, String script) {
        var r = ExternalProcess.run(deadline, "sh", "-c", script);
        assertThat(r.exitCode()).as("%s", r).isZero();
        return r.output();
    }

    /**
     * Deletes the device (librdmacm keeps a context on every device it touched and lets go of a
     * vanished one only in {@code rdma_get_devices}, so it is called while the delete waits:
     * see DeviceRemovalIT), then the bond and the veths.
     */
    private static void tearDown() throws InterruptedException {
        var show = ExternalProcess.run(Duration.ofSeconds(10), "rdma", "link", "show", DEVICE + "/1");
        if (show.exitCode() == 0) {
            try (ExternalProcess p = ExternalProcess.start("rdma", "link", "delete", DEVICE)) {
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (p.isAlive() && System.nanoTime() < deadline) {
                    try (CmDevices d = CmDevices.open()) {
                        // the call is the point
                    } catch (RuntimeException noDevice) {
                        // nothing listed: nothing to sync
                    }
                    Thread.sleep(200);
                }
                var r = p.await(Duration.ofSeconds(1));
                assertThat(r.timedOut()).as("rdma link delete %s: %s", DEVICE, r).isFalse();
            }
        }
        ExternalProcess.run(Duration.ofSeconds(20), "sh", "-c", "ip link del " + BOND + "; ip link del vbond0; "
                + "ip link del vbond1; true");
    }
}
