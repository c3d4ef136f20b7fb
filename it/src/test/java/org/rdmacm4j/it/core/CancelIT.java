package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;
import static org.rdmacm4j.it.core.CmFixtures.failureOf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoceTest;

/** future.cancel(true) on a pending connect frees everything it made, wherever it was. */
@SoftRoceTest
class CancelIT {

    /**
     * 192.0.2.99 is on the rig's subnet but nobody has it: address resolution waits for ARP (on
     * veth0 inside the guest) until its 2 s kernel timeout, so the cancel lands during resolve.
     */
    @Test
    void cancelDuringAddressResolution() throws Exception {
        try (RdmaCm cm = RdmaCm.builder().historySize(200).build()) {
            CompletableFuture<RdmaConnection> f = cm.connect(
                    new InetSocketAddress(InetAddress.getByName("192.0.2.99"), 7471),
                    ConnectOptions.builder().timeout(Duration.ofSeconds(30)).build(), ConnectionHandler.none());
            Thread.sleep(300);
            assertThat(f).isNotDone();
            assertThat(f.cancel(true)).isTrue();
            assertThat(failureOf(f)).isInstanceOf(CancellationException.class);
            Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> cm.statistics().liveIds() == 0);
        }
    }

    @Test
    void cancelImmediatelyAfterSubmit() throws Exception {
        try (RdmaCm cm = RdmaCm.open(); var server = new CmFixtures.AcceptingServer(cm)) {
            for (int i = 0; i < 20; i++) {
                CompletableFuture<RdmaConnection> f = cm.connect(server.target(), ConnectionHandler.none());
                f.cancel(true);
                assertThat(failureOf(f)).isInstanceOf(CancellationException.class);
            }
            // whatever the server accepted of those is closed by the peer's teardown
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cm.statistics().liveIds() == 1);
        }
    }

    /** The listener never decides: the connect sits in CONNECT (REQ sent, no reply). */
    @Test
    void cancelDuringTheCmHandshake() throws Exception {
        try (RdmaCm cm = RdmaCm.builder().historySize(200).build()) {
            var requests = new CompletableFuture<ConnectionRequest>();
            RdmaListener l = cm.listen(CmFixtures.server(0),
                    ListenOptions.defaults().withDecisionTimeout(Duration.ofSeconds(3)), requests::complete);
            CompletableFuture<RdmaConnection> f = cm.connect(CmFixtures.target(l),
                    ConnectOptions.builder().timeout(Duration.ofSeconds(60)).build(), ConnectionHandler.none());
            ConnectionRequest r = await(requests);   // the REQ has reached the server
            assertThat(f).isNotDone();
            assertThat(f.cancel(true)).isTrue();
            assertThat(failureOf(f)).isInstanceOf(CancellationException.class);
            // the cancelled client's id is destroyed; the server's request is not told by the kernel
            // (see ConnectFailuresIT) and expires at its 3 s decision deadline
            long t0 = System.nanoTime();
            var why = await(r.expired());
            System.out.printf("cancel during handshake: request expired %d ms after the cancel: %s%n",
                    (System.nanoTime() - t0) / 1_000_000, why.getMessage());
            await(l.close());
            Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> cm.statistics().liveIds() == 0);
        }
    }

    @Test
    void cancellingAnEstablishedConnectIsTooLate() throws Exception {
        try (RdmaCm cm = RdmaCm.open(); var server = new CmFixtures.AcceptingServer(cm)) {
            CompletableFuture<RdmaConnection> f = cm.connect(server.target(), ConnectionHandler.none());
            RdmaConnection c = await(f);
            assertThat(f.cancel(true)).isFalse();
            assertThat(c.state()).isEqualTo("ESTABLISHED");
            await(c.close());
        }
    }
}
