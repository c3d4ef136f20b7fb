package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmacm4j.it.support.CmIdTable;
import org.rdmacm4j.it.support.ExternalProcess;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * examples/bin/cmtime (the twin of rdma-core's cmtime) with N = 100 connections: Java client in
 * lockstep (cmtime's own way: each step for all before the next) against the C server, the C client
 * against the Java server, and the twin against itself (pipelined and sequential). Checks exit statuses and the per-step tables, and prints them
 * (FIGURE lines) so one guest run gives the C and Java figures side by side.
 *
 * <p>Each test starts one or two JVMs in the TCG guest (tens of seconds each on a loaded host),
 * hence the longer per-test deadline than {@link SoftRoceTest}'s.
 */
@SoftRoceTest
class CmtimeTwinIT {
    private static final int N = 100;
    private static final Duration RUN = Duration.ofSeconds(240);
    private static final String CMTIME = Path.of("examples/bin/cmtime").toAbsolutePath().toString();
    /** A measured row of cmtime's table: name, then four numbers. */
    private static final String NUMBERS = ":\\s+\\d+\\.\\d\\d\\s*\\d+\\.\\d\\d\\s*\\d+\\.\\d\\d\\s*\\d+\\.\\d\\d\\s*$";
    private static final List<String> C_ROWS = List.of("create id", "bind addr", "resolve addr", "resolve route",
            "create qp", "connect", "disconnect", "destroy");
    private static final List<String> JAVA_ROWS = List.of("resolve addr", "resolve route", "create qp", "connect", "disconnect",
            "destroy");

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void javaClientAgainstCmtimeServer() throws Exception {
        int port = 7581;
        try (ExternalProcess server = ExternalProcess.start("cmtime", "-b", SoftRoce.SERVER_ADDR,
                "-p", String.valueOf(port), "-c", String.valueOf(N))) {
            CmIdTable.awaitListening(server, SoftRoce.SERVER_ADDR, port, RUN);
            ExternalProcess.Result client = javaClient(port, "--lockstep");
            System.out.println("FIGURE cmtime twin client (lockstep) x rdma-core cmtime server:\n" + client);
            assertJavaTable(client, "--lockstep");
            // rdma-core 44's server does not exit on its own: close() kills it.
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void cmtimeClientAgainstJavaServer() throws Exception {
        int port = 7582;
        try (ExternalProcess server = javaServer(port)) {
            CmIdTable.awaitListening(server, SoftRoce.SERVER_ADDR, port, RUN);
            ExternalProcess.Result client = ExternalProcess.run(RUN, "cmtime", "-s", SoftRoce.SERVER_ADDR,
                    "-b", SoftRoce.CLIENT_ADDR, "-p", String.valueOf(port), "-c", String.valueOf(N));
            System.out.println("FIGURE rdma-core cmtime client x cmtime twin server:\n" + client);
            ExternalProcess.Result s = server.await(RUN);
            System.out.println("cmtime twin server: " + s);
            assertThat(client.exitCode()).as("%s", client).isZero();
            // cmtime exits 0 even when connections fail; it prints "event: ..." for each.
            assertThat(client.output()).as("%s", client).doesNotContain("event:").doesNotContain("failure");
            for (String row : C_ROWS) {
                assertThat(client.output().lines().anyMatch(Pattern.compile("^" + row + "\\s*" + NUMBERS).asPredicate()))
                        .as("row '%s' in %s", row, client).isTrue();
            }
            assertServer(s);
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void twinAgainstTwinPipelined() throws Exception {
        twinAgainstTwin(7583, "--pipelined");
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void twinAgainstTwinSequential() throws Exception {
        twinAgainstTwin(7584, "--sequential");
    }

    private static void twinAgainstTwin(int port, String mode) throws Exception {
        try (ExternalProcess server = javaServer(port)) {
            CmIdTable.awaitListening(server, SoftRoce.SERVER_ADDR, port, RUN);
            ExternalProcess.Result client = javaClient(port, mode);
            System.out.println("FIGURE cmtime twin client (" + mode + ") x cmtime twin server:\n" + client);
            ExternalProcess.Result s = server.await(RUN);
            System.out.println("cmtime twin server: " + s);
            assertJavaTable(client, mode);
            assertServer(s);
        }
    }

    private static ExternalProcess javaServer(int port) {
        assertThat(Files.isExecutable(Path.of(CMTIME))).as("%s (build with ./mvnw package first)", CMTIME).isTrue();
        return ExternalProcess.start(CMTIME, "-b", SoftRoce.SERVER_ADDR, "-p", String.valueOf(port),
                "-c", String.valueOf(N));
    }

    private static ExternalProcess.Result javaClient(int port, String mode) {
        return ExternalProcess.run(RUN, CMTIME, "-s", SoftRoce.SERVER_ADDR, "-b", SoftRoce.CLIENT_ADDR,
                "-p", String.valueOf(port), "-c", String.valueOf(N), mode);
    }

    private static void assertJavaTable(ExternalProcess.Result client, String mode) {
        assertThat(client.exitCode()).as("%s", client).isZero();
        assertThat(client.output()).as("%s", client).contains("step              total ms     max ms     min us  us / conn")
                .containsPattern("connections/s: connect \\d+\\.\\d \\(" + N + " in ")
                .doesNotContain("failed");
        List<String> measured = mode.equals("--lockstep")
                ? java.util.stream.Stream.concat(java.util.stream.Stream.of("create id"), JAVA_ROWS.stream()).toList()
                : JAVA_ROWS;
        assertThat(client.output()).containsPattern("cmtime: " + N + " connections to \\S+, " + mode.substring(2));
        for (String row : measured) {
            assertThat(client.output().lines().anyMatch(Pattern.compile("^" + row + "\\s*" + NUMBERS).asPredicate()))
                    .as("row '%s' in %s", row, client).isTrue();
        }
        for (String row : mode.equals("--lockstep") ? List.of("bind addr") : List.of("create id", "bind addr")) {
            // not measurable: "-" and a footnote
            assertThat(client.output().lines().anyMatch(l -> l.matches(row + "\\s*:\\s+-\\s+-\\s+-\\s+-\\s+\\(\\w\\)")))
                    .as("row '%s' in %s", row, client).isTrue();
        }
    }

    private static void assertServer(ExternalProcess.Result s) {
        assertThat(s.exitCode()).as("%s", s).isZero();
        assertThat(s.output()).as("%s", s).contains(N + " connections accepted")
                .contains(N + " disconnected by the client").contains(", 0 failed");
    }
}
