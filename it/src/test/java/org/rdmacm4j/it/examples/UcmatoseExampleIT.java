package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.examples.ExampleFixtures.bin;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * examples/bin/ucmatose against rdma-core's ucmatose, both directions: 2 connections, 10 messages of
 * 100 B each way; then each direction again with -t (type of service) and -a (ACK timeout), where our
 * side prints what ibv_query_qp reports for its QP.
 */
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

    /** Our client's TOS becomes its QP's traffic class; its -a its QP's ACK timeout (the C server has its own -a). */
    @Test
    void ourClientWithTosAndAckTimeoutAgainstUcmatoseServer() throws Exception {
        int port = 7474;
        try (ExternalProcess c = ExternalProcess.start("ucmatose", "-b", SoftRoce.SERVER_ADDR, "-p", String.valueOf(port),
                "-a", "12")) {
            ExampleFixtures.awaitListening(c, SoftRoce.SERVER_ADDR, port);
            String ours = ExampleFixtures.succeeded("examples/bin/ucmatose -s -t -a", ExternalProcess.run(
                    Duration.ofSeconds(90), bin("ucmatose"), "-s", SoftRoce.SERVER_ADDR, "-b", SoftRoce.CLIENT_ADDR,
                    "-p", String.valueOf(port), "-t", "32", "-a", "14"));
            assertThat(ours).containsPattern("ucmatose: qp \\d+: traffic class 32, ack timeout 14")
                    .contains("data transfers complete", "return status 0");
            String theirs = ExampleFixtures.succeeded("ucmatose -a (server)", c.await(ExampleFixtures.WAIT));
            assertThat(theirs).contains("data transfers complete", "disconnected", "return status 0")
                    .doesNotContain("option failed");
        }
    }

    /**
     * The C client's -t reaches our server's QP through the connect request (the passive side sets no
     * TOS of its own); our server's -a is its own QP's ACK timeout.
     */
    @Test
    void ucmatoseClientWithTosAndAckTimeoutAgainstOurServer() throws Exception {
        int port = 7475;
        try (ExternalProcess ours = ExternalProcess.start(bin("ucmatose"), "-b", SoftRoce.SERVER_ADDR,
                "-p", String.valueOf(port), "-a", "12")) {
            ExampleFixtures.awaitListening(ours, SoftRoce.SERVER_ADDR, port);
            String theirs = ExampleFixtures.succeeded("ucmatose -s -t -a", ExternalProcess.run(Duration.ofSeconds(60),
                    "ucmatose", "-s", SoftRoce.SERVER_ADDR, "-b", SoftRoce.CLIENT_ADDR, "-p", String.valueOf(port),
                    "-t", "32", "-a", "14"));
            assertThat(theirs).contains("data transfers complete", "return status 0").doesNotContain("option failed");
            String served = ExampleFixtures.succeeded("examples/bin/ucmatose -a (server)",
                    ours.await(ExampleFixtures.WAIT));
            assertThat(served).containsPattern("ucmatose: qp \\d+: traffic class 32, ack timeout 12")
                    .contains("disconnected", "return status 0");
        }
    }
}
