package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.it.core.CmFixtures.await;
import static org.rdmacm4j.it.core.CmFixtures.failureOf;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoceTest;

/** Private data at its bounds both ways, and rejects that carry the application's bytes. */
@SoftRoceTest
class PrivateDataAndRejectIT {

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    private static void roundTrip(byte[] request, byte[] reply) throws Exception {
        roundTrip(request, reply, false);
    }

    /** {@code raw}: no message channel, so the whole private data is the application's. */
    private static void roundTrip(byte[] request, byte[] reply, boolean raw) throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            var seen = new CompletableFuture<byte[]>();
            var framed = new CompletableFuture<Boolean>();
            RdmaListener spy = cm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> {
                seen.complete(r.privateData());
                framed.complete(r.privateDataFramed());
                r.accept(ConnectionHandler.none(), raw ? AcceptOptions.defaults().raw().privateData(reply)
                        : AcceptOptions.withPrivateData(reply));
            });
            ConnectOptions.Builder options = ConnectOptions.builder().privateData(request);
            RdmaConnection client = await(cm.connect(CmFixtures.target(spy),
                    (raw ? options.raw() : options).build(), ConnectionHandler.none()));
            assertThat(await(seen)).isEqualTo(request);
            assertThat(await(framed)).isTrue();
            assertThat(client.peerPrivateData()).isEqualTo(reply);
            await(client.close());
            await(spy.close());
        }
    }

    @Test
    void emptyPrivateDataBothWays() throws Exception {
        roundTrip(new byte[0], new byte[0]);
    }

    @Test
    void maximumPrivateDataOfRawConnectionsBothWays54And194Bytes() throws Exception {
        roundTrip(pattern(54, 1), pattern(194, 3), true);
    }

    @Test
    void maximumPrivateDataBesideTheMessageChannel47And187Bytes() throws Exception {
        roundTrip(pattern(47, 5), pattern(187, 6), false);
    }

    @Test
    void oneByteOverTheLimitIsRefusedBeforeAnythingIsQueued() {
        assertThatThrownBy(() -> ConnectOptions.builder().privateData(new byte[55]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ConnectOptions.builder().privateData(new byte[48]).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("47");
        assertThatThrownBy(() -> AcceptOptions.defaults().raw().privateData(new byte[195]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AcceptOptions.withPrivateData(new byte[188]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("187");
    }

    @Test
    void consumerRejectCarriesExactlyTheApplicationsBytes() throws Exception {
        byte[] why = "go away: maintenance until 03:00".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] max = pattern(146, 9);
        for (byte[] payload : new byte[][] {why, max, new byte[0]}) {
            try (RdmaCm cm = RdmaCm.open()) {
                var rejectSent = new CompletableFuture<Void>();
                RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(),
                        r -> r.reject(payload).whenComplete((v, e) -> {
                            if (e != null) {
                                rejectSent.completeExceptionally(e);
                            } else {
                                rejectSent.complete(null);
                            }
                        }));
                Throwable t = failureOf(cm.connect(CmFixtures.target(l), ConnectionHandler.none()));
                assertThat(t).isInstanceOf(ConnectionRejectedException.class);
                ConnectionRejectedException r = (ConnectionRejectedException) t;
                assertThat(r.reason()).isEqualTo(ConnectionRejectedException.Reason.CONSUMER);
                assertThat(r.peerData()).isEqualTo(payload);
                await(rejectSent);
                assertThat(cm.statistics().rejects()).isEqualTo(1);
                assertThat(cm.statistics().connectsFailed())
                        .containsEntry("ConnectionRejectedException/CONSUMER", 1L);
                await(l.close());
            }
        }
    }

    @Test
    void rejectLargerThan146BytesIsRefusedInTheCallersThread() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults());
            var client = cm.connect(CmFixtures.target(l), ConnectionHandler.none());
            ConnectionRequest req = await(l.next());
            assertThatThrownBy(() -> req.reject(new byte[147])).isInstanceOf(IllegalArgumentException.class);
            await(req.reject(new byte[] {1, 2, 3}));
            var t = (ConnectionRejectedException) failureOf(client);
            assertThat(t.peerData()).containsExactly(1, 2, 3);
            await(l.close());
        }
    }

    /** Pull form: the application takes the request, thinks (on another thread), then rejects. */
    @Test
    void requestRejectedAfterAnApplicationDecision() throws Exception {
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults());
            var client = cm.connect(CmFixtures.target(l),
                    ConnectOptions.builder().privateData("user=mallory".getBytes()).build(), ConnectionHandler.none());
            ConnectionRequest req = await(l.next());
            CompletableFuture<Void> decided = CompletableFuture.supplyAsync(() -> {
                try {
                    TimeUnit.MILLISECONDS.sleep(300);   // the "decision"
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return new String(req.privateData()).equals("user=mallory");
            }).thenCompose(deny -> deny ? req.reject("denied".getBytes()) : CompletableFuture.failedFuture(
                    new AssertionError("wrong data")));
            await(decided);
            var t = (ConnectionRejectedException) failureOf(client);
            assertThat(t.reason()).isEqualTo(ConnectionRejectedException.Reason.CONSUMER);
            assertThat(new String(t.peerData())).isEqualTo("denied");
            assertThat(req.expired()).isNotDone();   // decided requests never expire
            // the same listener still accepts
            var next = l.next();
            var ok = cm.connect(CmFixtures.target(l), ConnectionHandler.none());
            RdmaConnection srv = await(await(next).accept(ConnectionHandler.none()));
            RdmaConnection cli = await(ok);
            await(cli.close());
            await(srv.closeFuture());
            await(l.close());
        }
    }
}
