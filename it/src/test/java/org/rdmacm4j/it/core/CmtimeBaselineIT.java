package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * rdma-core's cmtime in the same guest, as the baseline for ScaleIT's figures: 1000 connections
 * through every CM step (create id, resolve addr/route, create QP, connect, disconnect, destroy),
 * timed per step. Prints cmtime's table.
 */
@SoftRoceTest
class CmtimeBaselineIT {

    @Test
    void cmtimeThousandConnections() throws Exception {
        int port = 7493;
        try (ExternalProcess server = ExternalProcess.start("cmtime", "-b", SoftRoce.SERVER_ADDR,
                "-p", String.valueOf(port), "-c", "1000")) {
            CmFixtures.awaitToolListening(server, port);
            ExternalProcess.Result client = ExternalProcess.run(Duration.ofSeconds(100), "cmtime",
                    "-s", SoftRoce.SERVER_ADDR, "-b", SoftRoce.CLIENT_ADDR, "-p", String.valueOf(port), "-c", "1000");
            System.out.println("FIGURE cmtime client:\n" + client);
            assertThat(client.exitCode()).as("%s", client).isZero();
            ExternalProcess.Result s = server.await(Duration.ofSeconds(10));
            System.out.println("cmtime server: " + s);
        }
    }
}
