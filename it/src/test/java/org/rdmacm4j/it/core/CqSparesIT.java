package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.RdmaResources;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * The CQs a device keeps for its next QP (cm-core's {@code CqSpares}), counted by the kernel
 * ({@code rdma resource show}): a raw connection that never posted leaves its CQ behind for the next
 * connection, which makes no CQ of its own; a reused CQ delivers completions once the application
 * posts; a CQ a poller armed (the application called {@code raw()}) is destroyed, never kept; and
 * the kept ones go with the device, when the last bound id (the listener's) goes.
 */
@SoftRoceTest
class CqSparesIT {

    @Test
    void aRawConnectionsCqIsKeptForTheNextAndGoesWithTheDevice() throws Exception {
        long atRest = count("cq");
        long qpsAtRest = count("qp");
        try (RdmaCm cm = RdmaCm.open(); SendRequests wr = SendRequests.allocate(1, 1)) {
            var server = rawServer(cm);
            ConnectOptions raw = ConnectOptions.builder().raw().build();

            // 1. A raw connection on which nothing is posted, closed: both ends' CQs stay, as spares.
            RdmaConnection c1 = await(cm.connect(server.target(), raw, ConnectionHandler.none()));
            RdmaConnection s1 = server.nextAccepted();
            assertThat(count("cq") - atRest).as("one CQ per end").isEqualTo(2);
            await(c1.close());
            await(s1.closeFuture());
            awaitLiveIds(cm, 1);
            awaitCount("cq", atRest + 2, "the two ends' CQs kept as the device's spares");
            awaitCount("qp", qpsAtRest, "QPs are never kept");

            // 2. The next connection takes them: no CQ is made, and a reused CQ delivers completions.
            var done = new CompletableFuture<String>();
            ConnectionHandler handler = new ConnectionHandler() {
                @Override
                public void onCompletion(RdmaConnection c, WorkCompletions wc, int i) {
                    done.complete(wc.wrId(i) + " " + wc.status(i));
                }
            };
            RdmaConnection c2 = await(cm.connect(server.target(), raw, handler));
            RdmaConnection s2 = server.nextAccepted();
            assertThat(count("cq")).as("both ends reused a spare CQ: none made").isEqualTo(atRest + 2);
            assertThat(count("qp") - qpsAtRest).as("each end made its QP").isEqualTo(2);
            wr.set(0, 42, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED).rdma(0, 0, 0);   // zero length: no rkey needed
            c2.raw().queuePair().postSend(wr, 1);
            assertThat(done.get(10, TimeUnit.SECONDS)).isEqualTo("42 " + WcStatus.SUCCESS);

            // 3. The client's CQ was armed by its poller (raw() registered it): destroyed, not kept.
            await(c2.close());
            await(s2.closeFuture());
            awaitLiveIds(cm, 1);
            awaitCount("cq", atRest + 1, "only the server's CQ, never armed, kept");

            // 4. The device goes with the listener's id, and its spares before it.
            await(server.listener.close());
            awaitLiveIds(cm, 0);
            awaitCount("cq", atRest, "the spares destroyed when the device was released");
            assertThat(cm.statistics().connectsSucceeded()).isEqualTo(2);
        }
        awaitCount("cq", atRest, "at rest after close");
    }

    /**
     * A burst's CQs (more than the steady 16) are kept while the spares are in use and taken by the
     * next burst, which makes none; once the spares are left alone for the instance's idle period,
     * those beyond 16 go. Two instances: one whose idle period outlasts the test (nothing may go
     * while the kept count is read), one of 200 ms (the surplus must go).
     */
    @Test
    void aBurstsCqsServeTheNextBurstAndTheSurplusGoesOnceIdle() throws Exception {
        long atRest = count("cq");
        int burst = 12;   // 24 CQs, both ends: 8 beyond the steady 16
        try (RdmaCm cm = RdmaCm.builder().spareCqIdle(Duration.ofHours(1)).build()) {
            var server = rawServer(cm);
            runBurst(cm, server, burst, atRest);
            awaitLiveIds(cm, 1);
            awaitCount("cq", atRest + 2L * burst, "every CQ of the burst kept, beyond the steady 16");
            runBurst(cm, server, burst, atRest);   // asserts, while connected, that no CQ was made
            awaitLiveIds(cm, 1);
            awaitCount("cq", atRest + 2L * burst, "the second burst's CQs kept as the first's were");
            await(server.listener.close());
            awaitLiveIds(cm, 0);
            awaitCount("cq", atRest, "every spare destroyed with the device");
        }
        try (RdmaCm cm = RdmaCm.builder().spareCqIdle(Duration.ofMillis(200)).build()) {
            var server = rawServer(cm);
            runBurst(cm, server, burst, atRest);
            awaitLiveIds(cm, 1);
            awaitCount("cq", atRest + 16, "the surplus gone after 200 ms idle, the steady 16 kept");
            await(server.listener.close());
            awaitLiveIds(cm, 0);
            awaitCount("cq", atRest, "the steady spares destroyed with the device");
        }
        awaitCount("cq", atRest, "at rest after close");
    }

    private static CmFixtures.AcceptingServer rawServer(RdmaCm cm) {
        return new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), ConnectionHandler.none(),
                AcceptOptions.defaults().raw());
    }

    /** {@code n} raw connections open at once, then all closed by the client; asserts the CQ count while they are open. */
    private static void runBurst(RdmaCm cm, CmFixtures.AcceptingServer server, int n, long atRest) throws Exception {
        ConnectOptions raw = ConnectOptions.builder().raw().build();
        var clients = new ArrayList<RdmaConnection>();
        var servers = new ArrayList<RdmaConnection>();
        for (int i = 0; i < n; i++) {
            clients.add(await(cm.connect(server.target(), raw, ConnectionHandler.none())));
            servers.add(server.nextAccepted());
        }
        // Spares kept and a CQ made for each end besides would count 4n after a burst of n.
        assertThat(count("cq") - atRest).as("one CQ per end of %s connections, the kept ones taken, none made beside them", n)
                .isEqualTo(2L * n);
        for (RdmaConnection c : clients) {
            await(c.close());
        }
        for (RdmaConnection s : servers) {
            await(s.closeFuture());
        }
    }

    private static long count(String kind) {
        var byDevice = RdmaResources.current().byDevice().get(SoftRoce.DEVICE);
        assertThat(byDevice).as("`rdma resource show` lists %s", SoftRoce.DEVICE).isNotNull();
        return byDevice.getOrDefault(kind, 0L);
    }

    private static void awaitCount(String kind, long expected, String why) {
        // rxe frees some objects after the verb returns: read until the count holds, within a deadline
        Awaitility.await(why).atMost(CmFixtures.WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> count(kind) == expected);
    }

    private static void awaitLiveIds(RdmaCm cm, long expected) {
        Awaitility.await("live ids " + expected).atMost(CmFixtures.WAIT).until(() -> cm.statistics().liveIds() == expected);
    }
}
