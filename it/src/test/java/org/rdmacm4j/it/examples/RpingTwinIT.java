package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmacm4j.it.support.CmIdTable;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * examples/bin/rping (org.rdmacm4j.examples.Rping) against rdma-core's rping, both directions, and
 * against itself: each pair exchanges ten validated pings ({@code -C 10 -V -v}); both processes
 * must exit 0 and print every ping, byte for byte what rping's pattern makes. Each test starts one
 * or two JVMs inside the TCG guest (tens of seconds each when the host is busy), hence the longer
 * per-test deadline.
 */
@SoftRoceTest
class RpingTwinIT {
    private static final String TWIN = Path.of("examples/bin/rping").toAbsolutePath().toString();
    private static final Duration RUN = Duration.ofSeconds(240);
    private static final int PINGS = 10;

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void twinClientAgainstRdmaCoreServer() throws Exception {
        pair(7481, "rping", TWIN);
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void rdmaCoreClientAgainstTwinServer() throws Exception {
        pair(7482, TWIN, "rping");
    }

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void twinAgainstTwin() throws Exception {
        pair(7483, TWIN, TWIN);
    }

    private static void pair(int port, String serverTool, String clientTool) throws Exception {
        assertThat(Path.of(TWIN)).as("the launcher (run from the checkout)").exists();
        assertThat(Files.isDirectory(Path.of("examples/target/classes"))).as("examples built").isTrue();
        try (ExternalProcess server = ExternalProcess.start(serverTool, "-s", "-v", "-V", "-C", String.valueOf(PINGS),
                "-a", SoftRoce.SERVER_ADDR, "-p", String.valueOf(port))) {
            CmIdTable.awaitListening(server, SoftRoce.SERVER_ADDR, port, RUN);
            ExternalProcess.Result client = ExternalProcess.run(RUN, clientTool, "-c", "-v", "-V",
                    "-C", String.valueOf(PINGS), "-I", SoftRoce.CLIENT_ADDR, "-a", SoftRoce.SERVER_ADDR,
                    "-p", String.valueOf(port));
            ExternalProcess.Result served = server.await(Duration.ofSeconds(120));
            System.out.println(client + "\n" + served);
            assertThat(client.timedOut()).as("client: %s", client).isFalse();
            assertThat(client.exitCode()).as("client exit status: %s", client).isZero();
            assertThat(served.timedOut()).as("server: %s", served).isFalse();
            assertThat(served.exitCode()).as("server exit status: %s", served).isZero();
            assertThat(lines(client.output(), "ping data: ")).as("client's pings: %s", client)
                    .containsExactlyElementsOf(expectedPings());
            assertThat(lines(served.output(), "server ping data: ")).as("server's pings: %s", served)
                    .containsExactlyElementsOf(expectedPings());
            for (ExternalProcess.Result r : List.of(client, served)) {
                assertThat(r.output()).as("no error logged: %s", r).doesNotContain("SEVERE", "Exception", "mismatch");
            }
        }
    }

    /** rping's pattern: "rdma-ping-N: " then letters from 'A' + N (mod 58) cycling A..z, 64 bytes with the NUL. */
    private static List<String> expectedPings() {
        List<String> pings = new ArrayList<>();
        for (int n = 0; n < PINGS; n++) {
            StringBuilder sb = new StringBuilder("rdma-ping-" + n + ": ");
            for (char c = (char) ('A' + n % 58); sb.length() < 63; c = c == 'z' ? 'A' : (char) (c + 1)) {
                sb.append(c);
            }
            pings.add(sb.toString());
        }
        return pings;
    }

    private static List<String> lines(String output, String prefix) {
        return output.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).toList();
    }
}
