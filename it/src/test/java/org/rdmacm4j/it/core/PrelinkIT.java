package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmacm4j.it.support.ChildJvm;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * The background linker ({@code RdmaCm.Builder.prelink}, on by default) leaves a process's first
 * connection nothing to link: in a fresh JVM (linking is once per process, so the suite's own JVM
 * cannot show it), a connection with a message each way and its close link no native function
 * that the linker had not linked already. The same program with the linker off is the control: there
 * the connection links the functions itself, so the register the check reads does see linking.
 * When a new native call joins a connection's life, this test names it: add its holder to
 * {@code verbs.internal.Linking.CONNECTION_PATH}.
 */
@SoftRoceTest
class PrelinkIT {

    @Test
    @Timeout(value = 300, unit = java.util.concurrent.TimeUnit.SECONDS)
    void aFirstConnectionLinksNothingTheLinkerLeftAndWithoutItLinksItsOwn() throws Exception {
        int port = 48000 + (int) (ProcessHandle.current().pid() % 1000);

        String withLinker = linkedByConnection("on", port);
        String withoutLinker = linkedByConnection("off", port + 1);

        assertThat(withLinker).as("functions the first connection linked with the linker on").isEqualTo("-");
        assertThat(withoutLinker.split(",")).as("functions the first connection linked with the linker off")
                .contains("rdma_resolve_addr", "rdma_create_qp", "rdma_connect", "rdma_accept", "rdma_disconnect");
    }

    /** Runs {@link FirstConnectionLinks} in a fresh JVM and returns what it printed after {@code linked-by-connection}. */
    private static String linkedByConnection(String prelink, int port) throws Exception {
        String repo = System.getProperty("user.dir");
        String cp = repo + "/it/target/test-classes:" + repo + "/it/target/classes:"
                + Files.readString(Path.of(repo, "it/target/it-classpath.txt")).trim();
        List<String> cmd = new ArrayList<>(ChildJvm.java());
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", cp, FirstConnectionLinks.class.getName(),
                prelink, SoftRoce.SERVER_ADDR, SoftRoce.CLIENT_ADDR, Integer.toString(port)));
        ExternalProcess.Result r = ExternalProcess.run(Duration.ofSeconds(140), cmd.toArray(String[]::new));
        System.out.println("prelink " + prelink + ": " + r.output().lines()
                .filter(l -> l.startsWith("linked-")).toList());
        assertThat(r.exitCode()).as("exit of %s", r).isZero();
        return r.output().lines().filter(l -> l.startsWith("linked-by-connection "))
                .map(l -> l.substring("linked-by-connection ".length())).findFirst()
                .orElseThrow(() -> new AssertionError("no linked-by-connection line in " + r));
    }
}
