package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.examples.ExampleFixtures.bin;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/** examples/bin/udaddy against rdma-core's udaddy, both directions (SIDR on port 7174, 10 datagrams of 100 B each way). */
@SoftRoceTest
class UdaddyExampleIT {
    private static final int PORT = 7174;

    @Test
    void ourClientAgainstUdaddyServer() throws Exception {
        try (ExternalProcess c = ExternalProcess.start("udaddy", "-b", SoftRoce.SERVER_ADDR)) {
            ExampleFixtures.awaitListening(c, SoftRoce.SERVER_ADDR, PORT);
            String ours = ExampleFixtures.succeeded("examples/bin/udaddy -s", ExternalProcess.run(Duration.ofSeconds(90),
                    bin("udaddy"), "-s", SoftRoce.SERVER_ADDR, "-b", SoftRoce.CLIENT_ADDR));
            assertThat(ours).containsPattern("udaddy: endpoint qpn 0x[0-9a-f]+ resolved .*:7174 to qpn 0x[0-9a-f]+")
                    .contains("initiating data transfers", "receiving data transfers")
                    .contains("data transfers complete (1 x 10 datagrams of 100 bytes each way", "return status 0");
            String theirs = ExampleFixtures.succeeded("udaddy (server)", c.await(ExampleFixtures.WAIT));
            assertThat(theirs).contains("receiving data transfers", "sending replies", "data transfers complete",
                    "return status 0");
        }
    }

    @Test
    void udaddyClientAgainstOurServer() throws Exception {
        try (ExternalProcess ours = ExternalProcess.start(bin("udaddy"), "-b", SoftRoce.SERVER_ADDR)) {
            ExampleFixtures.awaitListening(ours, SoftRoce.SERVER_ADDR, PORT);
            // The kernel shows our listener before a cold JVM has loaded what answers a SIDR request;
            // udaddy's SIDR query times out after a few seconds (UNREACHABLE). Re-run the C client
            // (at most 3 times) until our server answers; the exchange itself is checked in full.
            ExternalProcess.Result run = null;
            for (int attempt = 1; attempt <= 3; attempt++) {
                run = ExternalProcess.run(Duration.ofSeconds(60), "udaddy", "-s", SoftRoce.SERVER_ADDR,
                        "-b", SoftRoce.CLIENT_ADDR);
                if (!run.output().contains("RDMA_CM_EVENT_UNREACHABLE")) {
                    break;
                }
                System.out.println("udaddy client attempt " + attempt + " found our server not answering yet");
            }
            String theirs = ExampleFixtures.succeeded("udaddy -s", run);
            assertThat(theirs).contains("initiating data transfers", "receiving data transfers",
                    "data transfers complete", "return status 0");
            String served = ExampleFixtures.succeeded("examples/bin/udaddy (server)", ours.await(ExampleFixtures.WAIT));
            assertThat(served).contains("receiving data transfers", "sending replies", "data transfers complete",
                    "return status 0");
        }
    }
}
