package org.rdmacm4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With native access denied (the JDK's future default), the probe names the missing access and
 * the exact flag, instead of the JVM failing at the first downcall. Runs a child JVM.
 */
class NativeAccessProbeTest {

    /** The child JVM's entry point: prints what the probe says. */
    public static final class Main {
        public static void main(String[] args) {
            Rdma.Probe p = Rdma.probe();
            System.out.println(p.missing() + "|" + p.cause());
        }
    }

    @Test
    void deniedNativeAccessIsReportedWithTheExactFlag() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "--illegal-native-access=deny", "-cp",
                System.getProperty("java.class.path"), Main.class.getName())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).as(out).contains("NATIVE_ACCESS|native access is not enabled for the unnamed module"
                + " (class path): start the JVM with --enable-native-access=ALL-UNNAMED");
    }
}
