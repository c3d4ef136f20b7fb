package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * The peer process dies by SIGKILL (rping as the peer). The kernel closes its rdma_cm file,
 * destroying its ids: an established IB/RoCE CM id sends a DREQ on destroy, so the survivor hears
 * a disconnect without any timeout. It must tell the handler and free everything.
 */
@SoftRoceTest
class PeerKilledIT {

    @Test
    void rpingClientKilledWhileConnectedToOurListener() throws Exception {
        var rec = new CmFixtures.Recorder("server");
        try (RdmaCm cm = RdmaCm.open();
             var server = new CmFixtures.AcceptingServer(cm, ListenOptions.defaults(), rec, AcceptOptions.defaults());
             ExternalProcess rping = ExternalProcess.start("rping", "-c", "-v", "-C", "1",
                     "-I", SoftRoce.CLIENT_ADDR, "-a", SoftRoce.SERVER_ADDR,
                     "-p", String.valueOf(server.listener.localAddress().getPort()))) {
            RdmaConnection c = server.nextAccepted();
            assertThat(c.state()).isEqualTo("ESTABLISHED");
            long t0 = System.nanoTime();
            rping.sigkill();
            await(c.closeFuture());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            await(rec.closed);
            System.out.printf("rping -c SIGKILLed: our server side closed after %d ms; %s; history %s%n",
                    ms, rec.mine(), c.history());
            assertThat(rec.mine()).startsWith("server:established").endsWith("server:closed")
                    .containsAnyOf("server:disconnected", "server:error");
            assertThat(c.isClosed()).isTrue();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cm.statistics().liveIds() == 1);
        }
    }

    @Test
    void rpingServerKilledWhileOurClientIsConnected() throws Exception {
        int port = 7492;
        var rec = new CmFixtures.Recorder("client");
        try (ExternalProcess rping = ExternalProcess.start("rping", "-s", "-v", "-C", "1",
                "-a", SoftRoce.SERVER_ADDR, "-p", String.valueOf(port));
             RdmaCm cm = RdmaCm.open()) {
            CmFixtures.awaitToolListening(rping, port);
            RdmaConnection c = await(cm.connect(CmFixtures.server(port), ConnectOptions.defaults(), rec));
            assertThat(c.state()).isEqualTo("ESTABLISHED");
            long t0 = System.nanoTime();
            rping.sigkill();
            await(c.closeFuture());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            await(rec.closed);
            System.out.printf("rping -s SIGKILLed: our client side closed after %d ms; %s; history %s%n",
                    ms, rec.mine(), c.history());
            assertThat(rec.mine()).startsWith("client:established").endsWith("client:closed")
                    .containsAnyOf("client:disconnected", "client:error");
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cm.statistics().liveIds() == 0);
        }
    }
}
