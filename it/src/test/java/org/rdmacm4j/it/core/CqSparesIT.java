package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
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
            var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), ConnectionHandler.none(),
                    org.rdmacm4j.cm.core.AcceptOptions.defaults().raw());
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

    private static long count(String kind) {
        var byDevice = RdmaResources.current().byDevice().get(SoftRoce.DEVICE);
        assertThat(byDevice).as("`rdma resource show` lists %s", SoftRoce.DEVICE).isNotNull();
        return byDevice.getOrDefault(kind, 0L);
    }

    private static void awaitCount(String kind, long expected, String why) {
        // rxe frees some objects after the verb returns: read until the count holds, within a deadline
        Awaitility.await(why).atMost(CmFixtures.WAIT).pollInterval(java.time.Duration.ofMillis(100))
                .until(() -> count(kind) == expected);
    }

    private static void awaitLiveIds(RdmaCm cm, long expected) {
        Awaitility.await("live ids " + expected).atMost(CmFixtures.WAIT).until(() -> cm.statistics().liveIds() == expected);
    }
}
