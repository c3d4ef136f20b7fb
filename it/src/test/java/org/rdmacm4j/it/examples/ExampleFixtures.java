package org.rdmacm4j.it.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.rdmacm4j.it.support.CmIdTable;
import org.rdmacm4j.it.support.ExternalProcess;

/** Shared pieces of the example tests: where the launchers are, waiting for a listener, checking a run. */
final class ExampleFixtures {
    static final Duration WAIT = Duration.ofSeconds(30);

    private ExampleFixtures() { }

    /** {@code examples/bin/<name>}: the guest runs the suite from the checkout's root. */
    static String bin(String name) {
        Path p = Path.of("examples", "bin", name).toAbsolutePath();
        assertThat(Files.isExecutable(p)).as("%s exists (run from the checkout's root)", p).isTrue();
        return p.toString();
    }

    /**
     * Waits until the kernel shows a listening cm_id on {@code addr:port}: 75 s, as PeerDeathIT waits
     * for its cold peer. The examples run here without an AOT cache (run-it.sh: RDMACM4J_AOT=off),
     * both vCPUs on one host thread, and since the background linker (RdmaCm.Builder.prelink) their
     * start-up also links a connection's functions ahead. UdaddyExampleIT's server took 34-61 s to
     * listen and answer in the clean-clone CI runs of 2026-11-27, and in the CI of 25e6460 it came
     * up just after 60 s (the cm_id was listening when the wait's report was taken).
     */
    static void awaitListening(ExternalProcess process, String addr, int port) throws InterruptedException {
        CmIdTable.awaitListening(process, addr, port, Duration.ofSeconds(75));
    }

    /** Asserts the run exited 0 within its deadline, printed no stack trace, and returns its output. */
    static String succeeded(String what, ExternalProcess.Result r) {
        System.out.println(what + ": " + r);
        assertThat(r.timedOut()).as("%s: %s", what, r).isFalse();
        assertThat(r.exitCode()).as("%s: %s", what, r).isZero();
        assertThat(r.output()).as(what).doesNotContain("Exception", "\tat ");
        return r.output();
    }

    /** Asserts the run failed (non-zero, in time) with a message and no stack trace; returns its output. */
    static String failedCleanly(String what, ExternalProcess.Result r) {
        System.out.println(what + ": " + r);
        assertThat(r.timedOut()).as("%s: %s", what, r).isFalse();
        assertThat(r.exitCode()).as("%s: %s", what, r).isNotZero();
        assertThat(r.output()).as(what).doesNotContain("Exception in thread", "\tat ");
        return r.output();
    }
}
