package org.rdmacm4j.examples;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.RdmaCm;

/**
 * How rdma-core's cmatose family (ucmatose, udaddy, mckey) ends, for their twins: an expected
 * failure prints {@code <tool>: FAILED: <one line>}, then always {@code test complete} and
 * {@code return status N}, and the process exits with N (0 or 1).
 */
final class CmatoseRun {
    /** The tool's work on an open RdmaCm. */
    @FunctionalInterface
    interface Body {
        void run(RdmaCm cm) throws Exception;
    }

    private CmatoseRun() { }

    /** Runs {@code body} on a fresh RdmaCm (closed after it) and exits; {@code seconds} is the -w deadline, for the message. */
    static void runAndExit(String tool, int seconds, Body body) throws Exception {
        int status = 0;
        try (RdmaCm cm = RdmaCm.open()) {
            body.run(cm);
        } catch (ExecutionException | TimeoutException | IOException | RuntimeException e) {
            System.out.println(tool + ": FAILED: " + Cli.describe(e, seconds));
            status = 1;
        }
        System.out.println("test complete");
        System.out.println("return status " + status);
        System.exit(status);
    }
}
