package org.rdmacm4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every example's command line, on the host: each program runs in a JVM of its own, as its
 * launcher runs it, and exits in Cli before anything touches RDMA: {@code -h} prints the usage and
 * exits 0; a bad argument says what is wrong (the flag, its valid range), prints the usage and
 * exits 2, without a stack trace.
 */
class CommandLinesTest {
    private static final List<String> PROGRAMS = List.of("Echo", "ConnectDemo", "Cmtime", "Rping", "Ucmatose",
            "Udaddy", "Mckey");

    /** What one run printed (stdout and stderr) and how it ended. */
    private record Run(int exitCode, String output) { }

    private static Run run(String mainClass, String... args) throws IOException, InterruptedException {
        String path = String.join(File.pathSeparator, System.getProperty("jdk.module.path", ""),
                System.getProperty("java.class.path", ""));
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-cp", path, "org.rdmacm4j.examples." + mainClass));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s exits within 60 s", command).isTrue();
            return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            p.destroyForcibly();
        }
    }

    private static String name(String mainClass) {
        return mainClass.equals("ConnectDemo") ? "connect-demo" : mainClass.toLowerCase();
    }

    @Test
    void helpPrintsTheUsageAndExitsZero() throws Exception {
        for (String program : PROGRAMS) {
            for (String help : List.of("-h", "--help")) {
                Run r = run(program, help);
                assertThat(r.exitCode()).as("%s %s: %s", program, help, r.output()).isZero();
                assertThat(r.output()).as(program).startsWith("usage: " + name(program));
            }
        }
    }

    @Test
    void anUnknownFlagOrAMissingValueExitsTwoNamingIt() throws Exception {
        for (String program : PROGRAMS) {
            assertBad(run(program, "-x"), program, name(program) + ": unknown argument -x");
            String flag = program.equals("ConnectDemo") ? "-n" : program.equals("Udaddy") || program.equals("Mckey")
                    ? "-b" : "-p";   // one flag with a value each program has, given none
            assertBad(run(program, flag), program, name(program) + ": " + flag + " needs a value");
        }
    }

    @Test
    void aValueOutOfRangeOrAMissingRequirementExitsTwoSayingWhy() throws Exception {
        assertBad(run("Mckey", "-m", "239.1.2.3", "-c", "0"), "Mckey", "mckey: invalid -c 0 (valid range is 1 to 100000)");
        assertBad(run("Mckey", "-m", "239.1.2.3", "-C", "ten"), "Mckey", "mckey: invalid -C ten (valid range is 0 to");
        assertBad(run("Mckey"), "Mckey", "mckey: -m is required");
        assertBad(run("Mckey", "-m", "239.1.2.3", "-o"), "Mckey", "mckey: -o needs -s");
        assertBad(run("Mckey", "-m", "239.1.2.3", "-M"), "Mckey", "mckey: unknown argument -M");
        assertBad(run("Udaddy", "-b", "192.0.2.1", "-C", "0"), "Udaddy", "udaddy: invalid -C 0 (valid range is 1 to");
        assertBad(run("Udaddy"), "Udaddy", "udaddy: the server needs -b");
        assertBad(run("Udaddy", "-s", "192.0.2.1", "-t", "0"), "Udaddy", "udaddy: unknown argument -t");
        assertBad(run("Rping", "-s", "-S", "22"), "Rping", "rping: invalid -S 22 (valid range is 23 to 65536)");
        assertBad(run("Rping", "-c"), "Rping", "rping: the client needs -a address");
        assertBad(run("Ucmatose", "-a", "32"), "Ucmatose", "ucmatose: invalid -a 32 (valid range is 0 to 31)");
        assertBad(run("ConnectDemo", "-n", "many"), "ConnectDemo", "connect-demo: invalid -n many (valid range is 1 to");
    }

    private static void assertBad(Run r, String program, String message) {
        assertThat(r.exitCode()).as("%s: %s", program, r.output()).isEqualTo(2);
        assertThat(r.output()).as(program).startsWith(message).contains("usage: " + name(program))
                .doesNotContain("Exception", "\tat ");
    }
}
