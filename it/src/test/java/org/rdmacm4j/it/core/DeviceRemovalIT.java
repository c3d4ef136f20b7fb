package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.DeviceRemovedException;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.cm.CmDevices;

/**
 * {@code rdma link delete rxe0} under a listener and two live connections: DEVICE_REMOVAL reaches
 * every id, every connection fails with {@link DeviceRemovedException} and closes, the delete
 * completes, and after {@code rdma link add} the listener (re-listening per its policy) accepts
 * a new connection. The device is always restored, so later classes are unaffected.
 *
 * <p>The delete only completes once librdmacm has closed its cached context on the dead device,
 * which it does only while some other RDMA device is listed: see {@link #finishDelete}. The test
 * therefore adds a helper device {@code rxe_tmp} on veth1 for the duration and removes it once
 * rxe0 is back. The re-added rxe0 gets a new kernel index; the rig's suite-level check compares
 * per device name ({@code rig_same_resources}).
 */
@SoftRoceTest
class DeviceRemovalIT {
    private static final Duration DELETE_BOUND = Duration.ofSeconds(20);

    @Test
    void linkDeleteWithLiveConnectionsAndAListener() throws Exception {
        boolean deleted = false;
        try {
            List<String> events = new CopyOnWriteArrayList<>();
            var s = new CmFixtures.Recorder("server", events);
            try (RdmaCm cm = RdmaCm.open();
                 var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), s, AcceptOptions.defaults())) {
                List<CmFixtures.Recorder> recorders = new ArrayList<>();
                List<RdmaConnection> conns = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    var c = new CmFixtures.Recorder("client" + i, events);
                    conns.add(await(cm.connect(server.target(), ConnectOptions.defaults(), c)));
                    conns.add(server.nextAccepted());
                    recorders.add(c);
                }
                // one server Recorder is shared by both accepted connections: its errors are counted below
                var address = server.target();

                long t0 = System.nanoTime();
                deleted = true;
                ExternalProcess.Result del;
                try (ExternalProcess p = ExternalProcess.start("rdma", "link", "delete", SoftRoce.DEVICE)) {
                    for (var c : recorders) {
                        assertThat(await(c.error)).isInstanceOf(DeviceRemovedException.class);
                    }
                    for (RdmaConnection c : conns) {
                        await(c.closeFuture());
                        assertThat(c.isClosed()).isTrue();
                    }
                    long closedMs = (System.nanoTime() - t0) / 1_000_000;
                    del = finishDelete(p, DELETE_BOUND, true);
                    long delMs = (System.nanoTime() - t0) / 1_000_000;
                    System.out.printf("device removal: connections closed after %d ms, link delete done after %d ms"
                            + " (helper device needed: %s)%n%s%nevents %s%nserver errors %s%nclient histories %s%n",
                            closedMs, delMs, helperAdded, del, events, s.errors,
                            conns.stream().map(RdmaConnection::history).toList());
                }
                assertThat(del.timedOut()).as("rdma link delete within %s: %s", DELETE_BOUND, del).isFalse();
                assertThat(del.exitCode()).as("%s", del).isZero();
                // The server side hears either DEVICE_REMOVAL or, when the kernel tears the client side
                // down first, DISCONNECTED: both end in closed, which is what matters here.
                assertThat(s.errors).allMatch(e -> e instanceof DeviceRemovedException);
                org.awaitility.Awaitility.await().atMost(CmFixtures.WAIT).until(() ->
                        events.stream().filter(e -> e.equals("server:closed")).count() == 2);
                assertThat(events.stream().filter(e -> e.equals("server:error") || e.equals("server:disconnected"))
                        .count()).as("each server connection heard why it ended: %s", events).isEqualTo(2);
                for (var c : recorders) {
                    assertThat(c.mine()).containsExactly(c.tag + ":established", c.tag + ":error", c.tag + ":closed");
                }

                restore();
                deleted = false;

                // the listener re-listens per its policy (10 attempts, up to ~26 s of backoff)
                var c = new CmFixtures.Recorder("after", events);
                RdmaConnection again = connectWithin(cm, address, c, Duration.ofSeconds(30));
                RdmaConnection srv = server.nextAccepted();
                System.out.printf("device removal: listener %s accepted after the re-add; history %s%n",
                        server.listener, srv.history());
                assertThat(server.listener.isClosed()).isFalse();
                await(again.close());
                await(srv.closeFuture());
            }
        } finally {
            if (deleted) {
                restore();
            }
            removeHelper();
            // re-pin librdmacm's cache on the new rxe0 (the at-rest baseline counts one ctx per device)
            try (CmDevices d = CmDevices.open()) {
                assertThat(d.contexts()).isNotEmpty();
            }
        }
    }

    private static final String HELPER = "rxe_tmp";
    private static boolean helperAdded;

    /**
     * Waits for a running {@code rdma link delete} to finish, calling {@code rdma_get_devices} meanwhile.
     *
     * <p>rxe has no {@code disassociate_ucontext}, so the kernel's unregister waits for every open
     * uverbs context on the device, and librdmacm keeps one per device it ever touched
     * (librdmacm/cma.c). It drops a vanished device's context only from {@code sync_devices_list}
     * (run by {@code rdma_get_devices}), and that returns early with ENODEV when
     * {@code ibv_get_device_list} lists no device at all. With rxe0 the only device, the delete
     * therefore waits until the process exits. With {@code helper}, after 2 s of waiting a second
     * soft-RoCE device is added on veth1 so the device list is not empty and librdmacm lets go.
     */
    private static ExternalProcess.Result finishDelete(ExternalProcess p, Duration bound, boolean helper)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();
        while (p.isAlive() && System.nanoTime() < deadline) {
            if (helper && !helperAdded && System.nanoTime() - start > Duration.ofSeconds(2).toNanos()) {
                var add = ExternalProcess.run(Duration.ofSeconds(30), "rdma", "link", "add", HELPER,
                        "type", "rxe", "netdev", "veth1");
                System.out.println("device removal: delete still waiting; added helper: " + add);
                helperAdded = add.exitCode() == 0;
            }
            nudgeLibrdmacm();
            Thread.sleep(500);
        }
        return p.await(Duration.ofSeconds(1));
    }

    /** rdma_get_devices: librdmacm re-syncs its device cache, closing the contexts of vanished devices. */
    private static void nudgeLibrdmacm() {
        try (CmDevices d = CmDevices.open()) {
            // the call is the point
        } catch (RuntimeException noDevice) {
            // no device listed: nothing to sync against
        }
    }

    /** Deletes the helper device (rxe0 back by now, so librdmacm can drop the helper's context). */
    private static void removeHelper() throws InterruptedException {
        if (!helperAdded) {
            return;
        }
        try (ExternalProcess p = ExternalProcess.start("rdma", "link", "delete", HELPER)) {
            var r = finishDelete(p, Duration.ofSeconds(20), false);
            System.out.println("device removal: helper removed: " + r);
            assertThat(r.timedOut()).as("%s", r).isFalse();
        }
        helperAdded = false;
    }

    private static RdmaConnection connectWithin(RdmaCm cm, java.net.InetSocketAddress to, CmFixtures.Recorder c,
                                                Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                return await(cm.connect(to, ConnectOptions.defaults(), c));
            } catch (Exception e) {
                last = e;
                Thread.sleep(500);
            }
        }
        throw new AssertionError("no connection to the re-listening listener within " + within, last);
    }

    /** {@code rdma link add} and wait for the port to be ACTIVE. */
    private static void restore() throws InterruptedException {
        var show = ExternalProcess.run(Duration.ofSeconds(10), "rdma", "link", "show", SoftRoce.DEVICE + "/1");
        if (show.exitCode() != 0) {
            var add = ExternalProcess.run(Duration.ofSeconds(30), "rdma", "link", "add", SoftRoce.DEVICE,
                    "type", "rxe", "netdev", "veth0");
            assertThat(add.exitCode()).as("%s", add).isZero();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (ExternalProcess.run(Duration.ofSeconds(10), "rdma", "link", "show", SoftRoce.DEVICE + "/1")
                    .output().contains("state ACTIVE")) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(SoftRoce.DEVICE + "/1 not ACTIVE 60 s after rdma link add");
    }
}
