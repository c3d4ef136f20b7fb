package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * rdma-core's rping against rdmacm4j, both directions. rping goes on to exchange RDMA buffers,
 * which rdmacm4j does not do yet: the test asserts the CM side (ESTABLISHED on ours, rping notices
 * our disconnect) and bounds rping's life.
 */
@SoftRoceTest
class RpingInteropIT {

    @Test
    void rpingClientConnectsToAnRdmacm4jListener() throws Exception {
        var rec = new CmFixtures.Recorder("server");
        try (RdmaCm cm = RdmaCm.open();
             var server = new CmFixtures.AcceptingServer(cm, org.rdmacm4j.cm.core.ListenOptions.defaults(), rec,
                     org.rdmacm4j.cm.core.AcceptOptions.defaults());
             ExternalProcess rping = ExternalProcess.start("rping", "-c", "-v", "-C", "1",
                     "-I", SoftRoce.CLIENT_ADDR, "-a", SoftRoce.SERVER_ADDR,
                     "-p", String.valueOf(server.listener.localAddress().getPort()))) {
            RdmaConnection c = server.nextAccepted();
            assertThat(c.state()).isEqualTo("ESTABLISHED");
            assertThat(c.peerAddress().getAddress().getHostAddress()).isEqualTo(SoftRoce.CLIENT_ADDR);
            long t0 = System.nanoTime();
            await(c.close());
            ExternalProcess.Result r = rping.await(Duration.ofSeconds(30));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("rping -c after our close: %s after %d ms%n", r, ms);
            assertThat(r.timedOut()).as("rping -c should notice our disconnect: %s", r).isFalse();
            assertThat(rec.mine()).startsWith("server:established").endsWith("server:closed");
        }
    }

    @Test
    void rpingServerAcceptsAnRdmacm4jConnect() throws Exception {
        int port = 7491;
        var rec = new CmFixtures.Recorder("client");
        try (ExternalProcess rping = ExternalProcess.start("rping", "-s", "-v", "-C", "1",
                "-a", SoftRoce.SERVER_ADDR, "-p", String.valueOf(port));
             RdmaCm cm = RdmaCm.open()) {
            CmFixtures.awaitToolListening(rping, port);
            RdmaConnection c = await(cm.connect(CmFixtures.server(port), ConnectOptions.defaults(), rec));
            assertThat(c.state()).isEqualTo("ESTABLISHED");
            await(c.close());
            await(rec.closed);
            assertThat(rec.mine()).containsExactly("client:established", "client:closed");
            ExternalProcess.Result r = rping.await(Duration.ofSeconds(10));
            System.out.println("rping -s after our close: " + r);
        }   // rping is killed here if it still runs
    }
}
