package org.rdmacm4j.it.support;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The kernel's rdma_cm ids as {@code rdma resource show cm_id} lists them (every process's, RC
 * and UD): how a test knows that a tool it started, which has no connect retry to lean on, listens.
 */
public final class CmIdTable {
    private CmIdTable() { }

    /** The listing now. */
    public static String show() {
        return ExternalProcess.run(Duration.ofSeconds(10), "rdma", "resource", "show", "cm_id").output();
    }

    /** Whether a listening cm_id is bound to exactly {@code address:port}. */
    public static boolean listens(String address, int port) {
        Pattern at = Pattern.compile(Pattern.quote(address + ":" + port) + "(\\s|$)");   // not :74710 for :7471
        return show().lines().anyMatch(l -> l.contains("LISTEN") && at.matcher(l).find());
    }

    /**
     * Waits at most {@code within} until {@code process} listens on {@code address:port}; fails at
     * once if the process exits first, and with the listing if the time runs out.
     */
    public static void awaitListening(ExternalProcess process, String address, int port, Duration within)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("exited before listening on " + address + ":" + port + ": "
                        + process.await(Duration.ofSeconds(5)));
            }
            if (listens(address, port)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("nothing listens on " + address + ":" + port + " within " + within + "; cm_ids:\n"
                + show() + "\n" + process.await(Duration.ofSeconds(1)));
    }
}
