package org.rdmacm4j.cm.core.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmacm4j.cm.core.doctor.Finding;
import org.rdmacm4j.cm.core.doctor.Report;
import org.rdmacm4j.cm.core.doctor.Finding.Status;

/**
 * The doctor's reading of a machine, on imitations of /sys, /dev and /proc (the host has no RDMA,
 * so what a working machine looks like is copied from the soft-RoCE guest: rxe0 on veth0 with
 * 192.0.2.1 and 192.0.2.3): devices, ports, GIDs, links, modules and the limits' arithmetic.
 */
class DoctorImitatedMachineTest {
    @TempDir
    Path root;

    private void file(String path, String text) throws IOException {
        Path p = root.resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text + "\n");
    }

    private void libraries() throws IOException {
        Path dir = root.resolve("usr/lib/x86_64-linux-gnu");
        for (String[] lib : new String[][] {{"librdmacm.so.1", "librdmacm.so.1.3.44.0"},
                {"libibverbs.so.1", "libibverbs.so.1.14.44.0"}}) {
            file("usr/lib/x86_64-linux-gnu/" + lib[1], "ELF");
            Files.createSymbolicLink(dir.resolve(lib[0]), Path.of(lib[1]));
        }
        file("usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so", "ELF");
        file("usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so", "ELF");
    }

    /** The guest as it is after guest-setup.sh: rxe0 on veth0, port ACTIVE (or {@code state}). */
    private void guest(String state) throws IOException {
        libraries();
        for (String m : new String[] {"ib_core", "ib_uverbs", "rdma_cm", "rdma_ucm", "rdma_rxe"}) {
            Files.createDirectories(root.resolve("sys/module/" + m));
        }
        file("proc/modules", "rdma_ucm 32768 0 - Live 0x0\nrdma_rxe 135168 0 - Live 0x0");
        file("dev/infiniband/rdma_cm", "");
        file("dev/infiniband/uverbs0", "");
        String d = "sys/class/infiniband/rxe0/";
        file(d + "node_type", "1: CA");
        file(d + "parent", "veth0");
        file(d + "ports/1/state", state);
        file(d + "ports/1/phys_state", "5: LinkUp");
        file(d + "ports/1/link_layer", "Ethernet");
        file(d + "ports/1/rate", "10 Gb/sec (1X FDR10)");
        String[] gids = {"fe80:0000:0000:0000:8c11:57ff:febd:a10f", "0000:0000:0000:0000:0000:ffff:c000:0201",
                "0000:0000:0000:0000:0000:ffff:c000:0203", "0000:0000:0000:0000:0000:0000:0000:0000"};
        for (int i = 0; i < gids.length; i++) {
            file(d + "ports/1/gids/" + i, gids[i]);
            if (i < 3) {
                file(d + "ports/1/gid_attrs/types/" + i, "RoCE v2");
                file(d + "ports/1/gid_attrs/ndevs/" + i, "veth0");
            }
        }
        file("sys/class/net/veth0/type", "1");
        file("sys/class/net/veth0/operstate", "up");
        file("proc/net/route", "Iface\tDestination\tGateway\nveth0\t00000000\t0102000C0");
        file("proc/self/limits", """
                Limit                     Soft Limit           Hard Limit           Units
                Max open files            1024                 4096                 files
                Max locked memory         65536                65536                bytes""");
        file("proc/self/status", "Name:\tjava\nCapEff:\t0000000000000000");
    }

    private Report examine(int connections) {
        return Doctor.examine(Machine.imitatedAt(root), new Options(connections, null, null, 5, true));
    }

    private static Finding finding(Report r, String topic) {
        return r.finding(topic).orElseThrow(() -> new AssertionError("no finding " + topic + " in\n" + r.render()));
    }

    @Test
    void theSoftRoceGuestIsReadAsItIs() throws IOException {
        guest("4: ACTIVE");
        Report r = examine(1000);
        System.out.println(r.render());
        assertThat(finding(r, "librdmacm")).satisfies(f -> {
            assertThat(f.status()).isEqualTo(Status.OK);
            assertThat(f.detail()).isEqualTo("/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.44.0 (version 1.3.44.0, rdma-core 44)");
        });
        assertThat(finding(r, "libibverbs providers").detail()).contains("2 in /usr/lib/x86_64-linux-gnu/libibverbs: mlx5, rxe");
        assertThat(finding(r, "kernel modules")).satisfies(f -> {
            assertThat(f.status()).isEqualTo(Status.OK);
            assertThat(f.detail()).startsWith("ib_core, ib_uverbs, rdma_cm, rdma_ucm loaded").endsWith("rdma_rxe loaded");
        });
        assertThat(finding(r, "/dev/infiniband")).isEqualTo(new Finding("/dev/infiniband", Status.OK,
                "rdma_cm, uverbs0, readable and writable", ""));
        assertThat(finding(r, "RDMA device rxe0")).isEqualTo(new Finding("RDMA device rxe0", Status.OK,
                "rxe0 (CA, rxe on veth0): port 1 ACTIVE (LinkUp, Ethernet, 10 Gb/sec (1X FDR10))", ""));
        assertThat(finding(r, "RoCE IPv4 GIDs")).isEqualTo(new Finding("RoCE IPv4 GIDs", Status.OK,
                "192.0.2.1 (rxe0 port 1 gid 1, RoCE v2, veth0); 192.0.2.3 (rxe0 port 1 gid 2, RoCE v2, veth0)", ""));
        assertThat(finding(r, "rxe/siw links")).isEqualTo(new Finding("rxe/siw links", Status.OK,
                "rxe rxe0 on veth0 (ACTIVE)", ""));
        // 64 KiB of memlock, below even the hard limit: the limits.conf lines, for 312.5 MiB = 320000 KiB.
        assertThat(finding(r, "memlock limit")).satisfies(f -> {
            assertThat(f.status()).isEqualTo(Status.WARN);
            assertThat(f.detail()).startsWith("soft 64 KiB, hard 64 KiB; 1000 connections need about 312.5 MiB")
                    .endsWith("the soft limit allows about 0 connections (registration fails with ENOMEM beyond it)");
            assertThat(f.fix()).contains("USER soft memlock 320000").contains("USER hard memlock 320000")
                    .contains("LimitMEMLOCK=320000K").contains("ulimit -l 320000");
        });
        // 1024 soft, 4096 hard: ulimit -n is enough.
        assertThat(finding(r, "open-file limit")).satisfies(f -> {
            assertThat(f.status()).isEqualTo(Status.WARN);
            assertThat(f.detail()).startsWith("soft 1024, hard 4096; 1000 connections need 2064")
                    .endsWith("the soft limit allows about 480 connections (rdma_create_qp fails with EMFILE beyond it)");
            assertThat(f.fix()).startsWith("ulimit -n 2064 ");
        });
        assertThat(finding(r, "loopback connect").status()).isEqualTo(Status.MISSING);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.findings()).allSatisfy(f -> {
            if (f.status() != Status.OK) {
                assertThat(f.fix()).as(f.topic()).isNotBlank();
            }
        });
    }

    @Test
    void fewConnectionsFitTheLimits() throws IOException {
        guest("4: ACTIVE");
        file("proc/self/limits", """
                Max open files            1024                 4096                 files
                Max locked memory         8388608              8388608              bytes""");
        Report r = examine(10);
        assertThat(finding(r, "memlock limit").status()).isEqualTo(Status.OK);
        assertThat(finding(r, "memlock limit").detail()).contains("10 connections need about 3.6 MiB");
        assertThat(finding(r, "open-file limit").status()).isEqualTo(Status.OK);
        assertThat(finding(r, "open-file limit").detail()).contains("10 connections need 84");
    }

    @Test
    void capIpcLockLiftsTheMemlockLimit() throws IOException {
        guest("4: ACTIVE");
        file("proc/self/status", "CapEff:\t000001ffffffffff");
        Finding f = finding(examine(1000), "memlock limit");
        assertThat(f.status()).isEqualTo(Status.OK);
        assertThat(f.detail()).contains("CAP_IPC_LOCK");
    }

    @Test
    void aPortThatIsDownNamesItsInterface() throws IOException {
        guest("1: DOWN");
        Report r = examine(1000);
        assertThat(finding(r, "RDMA device rxe0")).satisfies(f -> {
            assertThat(f.status()).isEqualTo(Status.MISSING);
            assertThat(f.detail()).endsWith(": no ACTIVE port");
            assertThat(f.fix()).isEqualTo("bring its Ethernet interface up: sudo ip link set veth0 up");
        });
        assertThat(finding(r, "RoCE IPv4 GIDs").status()).isEqualTo(Status.WARN);
        assertThat(finding(r, "rxe/siw links").detail()).isEqualTo("rxe rxe0 on veth0 (not ACTIVE)");
    }

    @Test
    void aRoceDeviceWithoutAnIpv4AddressSaysWhichInterfaceNeedsOne() throws IOException {
        guest("4: ACTIVE");
        for (int i = 1; i < 3; i++) {
            file("sys/class/infiniband/rxe0/ports/1/gids/" + i, "0000:0000:0000:0000:0000:0000:0000:0000");
        }
        Finding f = finding(examine(1000), "RoCE IPv4 GIDs");
        assertThat(f.status()).isEqualTo(Status.MISSING);
        assertThat(f.fix()).isEqualTo("give the RoCE interface an IPv4 address: sudo ip addr add ADDRESS/PREFIX dev veth0");
    }

    @Test
    void anEmptyMachineIsMissingEverythingWithTheFixes() throws IOException {
        file("sys/class/net/eth0/type", "1");
        file("sys/class/net/eth0/operstate", "up");
        Report r = examine(1000);
        System.out.println(r.render());
        assertThat(finding(r, "librdmacm")).satisfies(f -> {
            assertThat(f.status()).isEqualTo(Status.MISSING);
            assertThat(f.detail()).startsWith("librdmacm.so.1 not found (searched ");
            assertThat(f.fix()).startsWith("sudo apt-get install librdmacm1");
        });
        assertThat(finding(r, "libibverbs").fix()).startsWith("sudo apt-get install libibverbs1");
        assertThat(finding(r, "libibverbs providers").fix()).startsWith("sudo apt-get install ibverbs-providers");
        assertThat(finding(r, "kernel modules").fix()).startsWith("sudo modprobe rdma_ucm ib_uverbs");
        assertThat(finding(r, "RDMA devices").fix()).contains(
                "sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev eth0 (soft-RoCE on eth0");
        assertThat(finding(r, "memlock limit").detail()).startsWith("could not read Max locked memory");
        assertThat(r.findings()).allSatisfy(f -> {
            assertThat(f.status()).as(f.topic()).isNotEqualTo(Status.FAILED);
            if (f.topic().equals("Java")) {
                return;
            }
            assertThat(f.status()).as(f.topic()).isIn(Status.MISSING, Status.WARN);
            assertThat(f.fix()).as(f.topic()).isNotBlank();
        });
        assertThat(r.render()).contains("verdict: NO").doesNotContain("\tat ");
    }

    @Test
    void gidsWithIpv4AreDecoded() {
        assertThat(Doctor.ipv4OfGidForTest("0000:0000:0000:0000:0000:ffff:c000:0201")).isEqualTo("192.0.2.1");
        assertThat(Doctor.ipv4OfGidForTest("0000:0000:0000:0000:0000:FFFF:0A00:00FE")).isEqualTo("10.0.0.254");
        assertThat(Doctor.ipv4OfGidForTest("fe80:0000:0000:0000:8c11:57ff:febd:a10f")).isNull();
        assertThat(Doctor.ipv4OfGidForTest("0000:0000:0000:0000:0000:0000:0000:0000")).isNull();
    }
}
