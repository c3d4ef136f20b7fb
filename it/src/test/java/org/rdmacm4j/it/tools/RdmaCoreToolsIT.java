package org.rdmacm4j.it.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.rdmacm4j.it.support.CmIdTable;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.RdmaResources;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.junit.jupiter.api.Test;

/**
 * The rig itself, checked with rdma-core's own tools before any of our code is trusted:
 * the device exists, and two rping processes exchange pings over rdma_cm on it.
 */
@SoftRoceTest
class RdmaCoreToolsIT {
    private static final int PINGS = 10;
    private static final String PORT = "7174";

    @Test
    void ibvDevicesListsTheSoftRoceDevice() {
        ExternalProcess.Result devices = ExternalProcess.run(Duration.ofSeconds(30), "ibv_devices");

        assertThat(devices.exitCode()).as("%s", devices).isZero();
        assertThat(devices.output()).as("%s", devices).containsPattern("(?m)^\\s+" + SoftRoce.DEVICE + "\\s");
    }

    @Test
    void rpingClientAndServerExchangeTenPings() throws InterruptedException {
        try (ExternalProcess server = ExternalProcess.start(
                "rping", "-s", "-v", "-V", "-C", String.valueOf(PINGS), "-a", SoftRoce.SERVER_ADDR, "-p", PORT)) {
            CmIdTable.awaitListening(server, SoftRoce.SERVER_ADDR, Integer.parseInt(PORT), Duration.ofSeconds(30));

            ExternalProcess.Result client = ExternalProcess.run(Duration.ofSeconds(60),
                    "rping", "-c", "-v", "-V", "-C", String.valueOf(PINGS),
                    "-I", SoftRoce.CLIENT_ADDR, "-a", SoftRoce.SERVER_ADDR, "-p", PORT);
            ExternalProcess.Result serverResult = server.await(Duration.ofSeconds(30));

            assertThat(client.exitCode()).as("client: %s", client).isZero();
            assertThat(serverResult.exitCode()).as("server: %s", serverResult).isZero();
            assertThat(client.output().lines().filter(l -> l.startsWith("ping data: rdma-ping-")))
                    .as("client: %s", client).hasSize(PINGS);
            assertThat(serverResult.output().lines().filter(l -> l.startsWith("server ping data: rdma-ping-")))
                    .as("server: %s", serverResult).hasSize(PINGS);
        }
    }

    @Test
    void restingSnapshotShowsTheDevice() {
        // The per-class leak check compares against this snapshot: it must name our device,
        // or the check would compare nothing.
        RdmaResources now = RdmaResources.current();
        assertThat(now.byDevice()).containsKey(SoftRoce.DEVICE);
        assertThat(now.byDevice().get(SoftRoce.DEVICE)).containsKeys("pd", "cq", "qp", "cm_id", "mr");
    }
}
