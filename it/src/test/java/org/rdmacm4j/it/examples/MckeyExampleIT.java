package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.examples.ExampleFixtures.bin;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * examples/bin/mckey against rdma-core's mckey, both directions. Each side joins on its own
 * schedule and UD multicast is unreliable, so the sender is run again (each run joins, pauses 3 s
 * and sends 10) until the receiver has its 10 datagrams and exits.
 */
@SoftRoceTest
class MckeyExampleIT {

    @Test
    void ourReceiverWithMckeySender() throws Exception {
        String group = "239.1.2.6";
        try (ExternalProcess ours = ExternalProcess.start(bin("mckey"), "-m", group, "-b", SoftRoce.SERVER_ADDR,
                "-w", "90")) {
            int runs = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(95).toNanos();
            while (ours.isAlive() && System.nanoTime() < deadline) {
                ExternalProcess.Result r = ExternalProcess.run(Duration.ofSeconds(30), "mckey", "-m", group,
                        "-b", SoftRoce.CLIENT_ADDR, "-s");
                runs++;
                assertThat(ExampleFixtures.succeeded("mckey -s (run " + runs + ")", r))
                        .contains("initiating data transfers", "return status 0");
            }
            String received = ExampleFixtures.succeeded("examples/bin/mckey (receiver, after " + runs + " mckey -s runs)",
                    ours.await(Duration.ofSeconds(10)));
            assertThat(received).contains("mckey: starting server", "mckey: joined " + group, "receiving data transfers")
                    .containsPattern("mckey: 1 x 10 datagrams of 100 bytes received in [0-9.]+ ms")
                    .contains("data transfers complete", "return status 0");
        }
    }

    @Test
    void mckeyReceiverWithOurSendOnlySender() throws Exception {
        String group = "239.1.2.7";
        try (ExternalProcess theirs = ExternalProcess.start("mckey", "-m", group, "-b", SoftRoce.SERVER_ADDR)) {
            int runs = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(95).toNanos();
            while (theirs.isAlive() && System.nanoTime() < deadline) {
                ExternalProcess.Result r = ExternalProcess.run(Duration.ofSeconds(100), bin("mckey"), "-m", group,
                        "-b", SoftRoce.CLIENT_ADDR, "-s", "-o");
                runs++;
                assertThat(ExampleFixtures.succeeded("examples/bin/mckey -s -o (run " + runs + ")", r))
                        .contains("mckey: starting client", "as a send-only member", "initiating data transfers",
                                "return status 0");
            }
            String received = ExampleFixtures.succeeded("mckey (receiver, after " + runs + " runs of ours)",
                    theirs.await(Duration.ofSeconds(10)));
            assertThat(received).contains("receiving data transfers", "data transfers complete", "return status 0");
        }
    }
}
