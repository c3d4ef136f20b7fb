package org.rdmacm4j.cm.core.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The doctor on the host, which has the libraries (scripts/ensure-host-packages.sh installs them)
 * but no RDMA in its kernel: run as a person runs it, {@code java -m
 * org.rdmacm4j.cm.core/org.rdmacm4j.cm.core.doctor.Doctor} on the module path of the jars, it must
 * exit non-zero, print no stack trace, and say of each RDMA part that it is MISSING, with the
 * fix. What is there (the JVM, the libraries with their versions) is reported as found.
 */
class DoctorOnHostTest {
    private static final Pattern FINDING = Pattern.compile(
            "(?m)^(ok     |WARN   |MISSING|FAILED )  ([^:]+): (.*)\\n(?:         fix: (.*)\\n((?:              .*\\n)*))?");

    /** Status, detail and fix of each finding, by topic, as printed. */
    record Printed(String status, String detail, String fix) { }

    /** cm-core's runtime modules besides rdmacm4j's own: Guava and what its module requires. */
    private static final List<String> RUNTIME_DEPENDENCIES = List.of("guava-", "failureaccess-", "jspecify-",
            "error_prone_annotations-", "j2objc-annotations-", "listenablefuture-");

    private static int exit;
    private static String output;
    private static Map<String, Printed> findings;

    @BeforeAll
    static void runTheDoctorAsAPersonDoes() throws Exception {
        List<String> path = new ArrayList<>();
        for (String p : List.of("jdk.module.path", "java.class.path")) {
            Arrays.stream(System.getProperty(p, "").split(File.pathSeparator))
                    .filter(e -> !e.isBlank() && !e.endsWith("test-classes"))
                    .filter(e -> e.contains("rdmacm4j") || e.endsWith("classes") || RUNTIME_DEPENDENCIES.stream()
                            .anyMatch(d -> Path.of(e).getFileName().toString().startsWith(d)))
                    .forEach(path::add);
        }
        List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=org.rdmacm4j.verbs", "-p", String.join(File.pathSeparator, path),
                "-m", "org.rdmacm4j.cm.core/org.rdmacm4j.cm.core.doctor.Doctor", "-t", "5");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the doctor exits within 60 s").isTrue();
            exit = p.exitValue();
            output = new String(out, StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
        }
        System.out.println(String.join(" ", command) + "\n" + output + "exit " + exit);
        findings = new LinkedHashMap<>();
        Matcher m = FINDING.matcher(output);
        while (m.find()) {
            String fix = m.group(4) == null ? "" : m.group(4) + (m.group(5) == null ? "" : "\n" + m.group(5).strip());
            findings.put(m.group(2), new Printed(m.group(1).strip(), m.group(3), fix.strip()));
        }
    }

    @Test
    void exitsNonZeroWithAVerdictAndNoStackTrace() {
        assertThat(exit).isEqualTo(1);
        assertThat(output).startsWith("rdmacm4j doctor: can this machine run rdmacm4j?")
                .contains("verdict: NO, this machine cannot run rdmacm4j yet")
                .doesNotContain("Exception in thread", "\tat ", "Caused by", "WARNING: ");
        assertThat(findings.keySet()).containsExactly("Java", "librdmacm", "libibverbs", "libibverbs providers",
                "kernel modules", "/dev/infiniband", "RDMA devices", "RoCE IPv4 GIDs", "rxe/siw links",
                "memlock limit", "open-file limit", "loopback connect");
        findings.forEach((topic, f) -> {
            assertThat(f.status()).as(topic).isNotEqualTo("FAILED");
            if (!f.status().equals("ok")) {
                assertThat(f.fix()).as("%s is %s and names its fix", topic, f.status()).isNotBlank();
            }
        });
    }

    @Test
    void everyRdmaPartIsMissingWithItsFix() {
        assertMissing("kernel modules", "not loaded: ib_core, ib_uverbs, rdma_cm, rdma_ucm",
                "sudo modprobe rdma_ucm ib_uverbs");
        assertThat(findings.get("kernel modules").fix()).contains("has no RDMA support")
                .contains("it/rig/guest.sh -- examples/bin/doctor");
        assertMissing("/dev/infiniband", "/dev/infiniband does not exist", "sudo modprobe rdma_ucm ib_uverbs");
        assertMissing("RDMA devices", "no RDMA device", "sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev ");
        assertMissing("RoCE IPv4 GIDs", "no RoCE port", "sudo ip addr add ADDRESS/PREFIX dev ");
        assertMissing("rxe/siw links", "no rxe (soft-RoCE) or siw (soft-iWARP) link", "rdma link add rxe0 type rxe netdev ");
        assertMissing("loopback connect", "RdmaCm.open() threw RdmaUnavailableException (DEVICE): no RDMA device",
                "apply the fixes above");
    }

    @Test
    void whatIsThereIsFoundWithItsVersion() {
        assertThat(findings.get("Java")).extracting(Printed::status).isEqualTo("ok");
        assertThat(findings.get("Java").detail()).contains("native access enabled (--enable-native-access=org.rdmacm4j.verbs)");
        for (String lib : List.of("librdmacm", "libibverbs")) {
            Printed f = findings.get(lib);
            assertThat(f.status()).as(lib).isEqualTo("ok");
            assertThat(f.detail()).as(lib).containsPattern("/" + lib + "\\.so\\.1\\.\\d+\\.\\d+\\.\\d+ \\(version 1\\.\\d+\\.\\d+\\.\\d+, rdma-core \\d+\\)")
                    .containsPattern("Debian package " + lib + "1 \\S+");
        }
        assertThat(findings.get("libibverbs providers").detail()).contains("rxe");
    }

    @Test
    void theLimitsStateTheirEstimateAndBasis() {
        Printed memlock = findings.get("memlock limit");
        assertThat(memlock.detail()).containsPattern("soft [0-9.]+ (KiB|MiB|GiB)|soft unlimited")
                .contains("1000 connections need about 312.5 MiB (estimate 320 KiB per connection: 2 x 32 registered"
                        + " 4 KiB message slots");
        if (!memlock.status().equals("ok")) {
            assertThat(memlock.fix()).contains("ulimit -l ");
        }
        Printed files = findings.get("open-file limit");
        assertThat(files.detail()).contains("1000 connections need 2064 (2 per connection");
        if (!files.status().equals("ok")) {
            assertThat(files.fix()).contains("ulimit -n 2064");
        }
    }

    @Test
    void badArgumentsExitTwoAndHelpExitsZero() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8), e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(Doctor.run(new String[] {"-h"}, o, e)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usage: doctor");
        assertThat(Doctor.run(new String[] {"-x"}, o, e)).isEqualTo(2);
        assertThat(Doctor.run(new String[] {"-n", "0"}, o, e)).isEqualTo(2);
        assertThat(Doctor.run(new String[] {"-a", "example.com"}, o, e)).isEqualTo(2);
        assertThat(Doctor.run(new String[] {"-t"}, o, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("doctor: unknown argument -x")
                .contains("doctor: invalid -n 0: valid range is 1 to").contains("doctor: invalid -a example.com")
                .contains("doctor: -t needs a value").doesNotContain("\tat ");
    }

    private static void assertMissing(String topic, String detail, String fix) {
        Printed f = findings.get(topic);
        assertThat(f).as(topic).isNotNull();
        assertThat(f.status()).as("%s: %s", topic, f).isEqualTo("MISSING");
        assertThat(f.detail()).as(topic).contains(detail);
        assertThat(f.fix()).as(topic).contains(fix);
    }
}
