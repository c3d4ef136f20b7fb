package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.examples.ExampleFixtures.bin;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/** examples/bin/ucmatose against rdma-core's ucmatose, both directions: 2 connections, 10 messages of 100 B each way. */
@SoftRoceTest
class UcmatoseExampleIT {

    @Test
    void ourClientAgainstUcmatoseServer() throws Exception {
        int port = 7472;
        try (ExternalProcess c = ExternalProcess.start("ucmatose", "-b", SoftRoce.SERVER_ADDR, "-p", String.valueOf(port),
                "-c", "2")) {
            ExampleFixtures.awaitListening(c, SoftRoce.SERVER_ADDR, port);
            String ours = ExampleFixtures.succeeded("examples/bin/ucmatose -s", ExternalProcess.run(Duration.ofSeconds(90),
                    bin("ucmatose"), "-s", SoftRoce.SERVER_ADDR, "-b", SoftRoce.CLIENT_ADDR, "-p", String.valueOf(port),
                    "-c", "2"));
            assertThat(ours).contains("ucmatose: 2 connection(s) established", "receiving data transfers",
                    "sending replies", "data transfers complete", "return status 0");
            String theirs = ExampleFixtures.succeeded("ucmatose (server)", c.await(ExampleFixtures.WAIT));
            assertThat(theirs).contains("initiating data transfers", "data transfers complete", "disconnected",
                    "return status 0");
        }
    }

    @Test
    void ucmatoseClientAgainstOurServer() throws Exception {
        int port = 7473;
        try (ExternalProcess ours = ExternalProcess.start(bin("ucmatose"), "-b", SoftRoce.SERVER_ADDR,
                "-p", String.valueOf(port), "-c", "2")) {
            ExampleFixtures.awaitListening(ours, SoftRoce.SERVER_ADDR, port);
            String theirs = ExampleFixtures.succeeded("ucmatose -s", ExternalProcess.run(Duration.ofSeconds(60),
                    "ucmatose", "-s", SoftRoce.SERVER_ADDR, "-b", SoftRoce.CLIENT_ADDR, "-p", String.valueOf(port),
                    "-c", "2"));
            assertThat(theirs).contains("receiving data transfers", "sending replies", "data transfers complete",
                    "return status 0");
            String served = ExampleFixtures.succeeded("examples/bin/ucmatose (server)", ours.await(ExampleFixtures.WAIT));
            assertThat(served).contains("initiating data transfers", "completing sends", "receiving data transfers")
                    .containsPattern("data transfers complete \\(2 x 10 messages of 100 bytes each way in [0-9.]+ ms\\)")
                    .contains("disconnected", "return status 0");
        }
    }
}
