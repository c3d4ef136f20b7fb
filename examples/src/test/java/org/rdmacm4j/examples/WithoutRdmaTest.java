package org.rdmacm4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every example on the host, which has no RDMA, started as examples/launch.sh starts it (through
 * {@link Launch}) with arguments it accepts: each prints the one line of
 * {@link org.rdmacm4j.cm.core.RdmaUnavailableException} (what is missing, the doctor's name), no
 * stack trace, and exits non-zero.
 */
class WithoutRdmaTest {
    /** Each program with arguments that get it past its command line to RdmaCm.open(). */
    private static final List<List<String>> RUNS = List.of(
            List.of("echo", "Echo"),
            List.of("echo", "Echo", "-c", "-a", "127.0.0.1"),
            List.of("connect-demo", "ConnectDemo"),
            List.of("cmtime", "Cmtime", "-b", "127.0.0.1"),
            List.of("cmtime", "Cmtime", "-s", "127.0.0.1"),
            List.of("rping", "Rping", "-s"),
            List.of("rping", "Rping", "-c", "-a", "127.0.0.1"),
            List.of("ucmatose", "Ucmatose"),
            List.of("udaddy", "Udaddy", "-b", "127.0.0.1"),
            List.of("mckey", "Mckey", "-m", "239.1.2.3"),
            List.of("hello-server", "HelloServer", "127.0.0.1", "7471"),
            List.of("hello-client", "HelloClient", "127.0.0.1", "7471"));

    @Test
    void everyExampleSaysRdmaIsUnavailableAndNamesTheDoctor() throws Exception {
        String path = String.join(File.pathSeparator, System.getProperty("jdk.module.path", ""),
                System.getProperty("java.class.path", ""));
        for (List<String> run : RUNS) {
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", path, "org.rdmacm4j.examples.Launch"));
            command.addAll(run);
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out;
            try {
                out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s exits within 60 s", run).isTrue();
            } finally {
                p.destroyForcibly();
            }
            String name = run.get(0);
            System.out.println(run + " -> exit " + p.exitValue() + ":\n" + out);
            assertThat(p.exitValue()).as("%s: %s", run, out).isNotZero();
            assertThat(out).as("%s", run)
                    .containsPattern("(?m)^" + name + ": (FAILED: |RdmaUnavailableException: )?RDMA is not available on this"
                            + " machine: no RDMA device")
                    .contains("To see what is missing and how to fix it, run examples/bin/doctor")
                    .doesNotContain("Exception in thread", "\tat ", "Caused by");
            assertThat(out.lines().filter(l -> l.contains("RDMA is not available")).count()).as("%s", run).isOne();
        }
    }

    @Test
    void launchWithoutAClassSaysHowItIsRun() throws Exception {
        String path = System.getProperty("java.class.path", "") + File.pathSeparator + System.getProperty("jdk.module.path", "");
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-cp", path,
                "org.rdmacm4j.examples.Launch").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(out).startsWith("usage: Launch NAME CLASS");
    }
}
