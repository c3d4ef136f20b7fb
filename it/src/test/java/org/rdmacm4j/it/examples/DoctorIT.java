package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.examples.ExampleFixtures.bin;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.doctor.Doctor;
import org.rdmacm4j.cm.core.doctor.Finding.Status;
import org.rdmacm4j.cm.core.doctor.Report;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * The doctor where RDMA works (the soft-RoCE guest): examples/bin/doctor as a person runs it says
 * YES and exits 0 after its loopback connection, with the key findings (libraries, modules,
 * /dev/infiniband, the device's ACTIVE port, both RoCE IPv4 GIDs, the rxe link); the same
 * examination in-process through {@code Doctor.examine()}; and an address that is not on an RDMA
 * device is a FAILED loopback with its fix, exit 1, no stack trace.
 */
@SoftRoceTest
class DoctorIT {

    @Test
    void theLauncherSaysYesAndExitsZero() {
        String out = ExampleFixtures.succeeded("doctor", ExternalProcess.run(Duration.ofSeconds(100), bin("doctor"),
                "-t", "60"));
        assertThat(out).startsWith("rdmacm4j doctor: can this machine run rdmacm4j?")
                .containsPattern("(?m)^ok       Java: Java 25.*native access enabled \\(--enable-native-access=org.rdmacm4j.verbs\\)$")
                .containsPattern("(?m)^ok       librdmacm: /\\S+/librdmacm\\.so\\.1\\.\\d+\\.\\d+\\.\\d+ \\(version [0-9.]+, rdma-core \\d+\\)")
                .containsPattern("(?m)^ok       libibverbs: /\\S+/libibverbs\\.so\\.1\\.\\d+\\.\\d+\\.\\d+ \\(version [0-9.]+, rdma-core \\d+\\)")
                .containsPattern("(?m)^ok       kernel modules: ib_core, ib_uverbs, rdma_cm, rdma_ucm loaded")
                .containsPattern("(?m)^ok       /dev/infiniband: rdma_cm, uverbs\\d+, readable and writable$")
                .containsPattern("(?m)^ok       RDMA device " + SoftRoce.DEVICE + ": " + SoftRoce.DEVICE
                        + " \\(CA.*\\): port 1 ACTIVE \\(LinkUp, Ethernet")
                .containsPattern("(?m)^ok       RoCE IPv4 GIDs: .*" + SoftRoce.SERVER_ADDR.replace(".", "\\.") + " \\("
                        + SoftRoce.DEVICE + " port 1 gid \\d+, RoCE v2")
                .containsPattern("(?m)^ok       RoCE IPv4 GIDs: .*" + SoftRoce.CLIENT_ADDR.replace(".", "\\."))
                .containsPattern("(?m)^ok       rxe/siw links: .*rdma link show: link " + SoftRoce.DEVICE + "/1 state ACTIVE")
                .containsPattern("(?m)^(ok     |WARN   )  memlock limit: .*1000 connections need about 312\\.5 MiB")
                .containsPattern("(?m)^(ok     |WARN   )  open-file limit: .*1000 connections need 2064")
                .containsPattern("(?m)^ok       loopback connect: connected " + SoftRoce.CLIENT_ADDR.replace(".", "\\.")
                        + " -> " + SoftRoce.SERVER_ADDR.replace(".", "\\.") + ":\\d+ in [0-9.]+ ms, one message delivered,"
                        + " closed gracefully in [0-9.]+ ms")
                .contains("verdict: YES, this machine can run rdmacm4j")
                .doesNotContain("MISSING", "FAILED");
    }

    @Test
    void examineInProcessFindsTheSameAndConnects() {
        Report r = Doctor.examine(Doctor.DEFAULT_CONNECTIONS, Duration.ofSeconds(60));   // TCG: a cold JVM is slow
        System.out.println(r.render());
        assertThat(r.loopbackWorked()).as(r.render()).isTrue();
        assertThat(r.exitCode()).isZero();
        for (String topic : new String[] {"librdmacm", "libibverbs", "libibverbs providers", "kernel modules",
                "/dev/infiniband", "RDMA device " + SoftRoce.DEVICE, "RoCE IPv4 GIDs", "rxe/siw links", "loopback connect"}) {
            assertThat(r.finding(topic)).as(topic).hasValueSatisfying(f -> assertThat(f.status()).as("%s", f)
                    .isEqualTo(Status.OK));
        }
        assertThat(r.findings()).noneMatch(f -> f.status() == Status.MISSING || f.status() == Status.FAILED);
    }

    @Test
    void anAddressNotOnAnRdmaDeviceIsAFailedLoopbackWithItsFix() {
        ExternalProcess.Result run = ExternalProcess.run(Duration.ofSeconds(100), bin("doctor"), "-a", "192.0.2.99",
                "-t", "30");
        String out = ExampleFixtures.failedCleanly("doctor -a 192.0.2.99", run);
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(out).containsPattern("(?m)^FAILED   loopback connect: could not listen on 192\\.0\\.2\\.99: ")
                .contains("fix: the address must be an IPv4 address of an RDMA interface of this machine")
                .contains("verdict: NO").doesNotContain("Exception in thread", "\tat ");
    }
}
