package org.rdmacm4j.it.twohost;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * The two-host fabric as a role sees it ({@code it/rig/two-hosts.sh}): host a is 192.0.2.1, host
 * b is 192.0.2.2; faults are asked of the host side through the role's results directory and
 * acknowledged there once done. (Not a test class.)
 */
final class TwoHostFabric {
    static final String A = "192.0.2.1";
    static final String B = "192.0.2.2";
    /** Where role b's peer listens. */
    static final int PEER_PORT = 7500;

    private TwoHostFabric() { }

    static Path out() {
        String o = System.getenv("RDMACM4J_OUT");
        if (o == null || o.isEmpty()) {
            throw new IllegalStateException("RDMACM4J_OUT is not set: run this through it/rig/run-two-hosts.sh");
        }
        return Path.of(o);
    }

    static InetSocketAddress address(String host, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Asks the host side for a fault ({@code kill-b}, {@code link-down-b}, {@code link-up-b}...)
     * and waits (bounded) until it says it was done.
     */
    static void fault(String what) throws IOException, InterruptedException {
        Path requests = out().resolve("requests");
        Path done = out().resolve("done");
        Files.writeString(requests, what + "\n", StandardOpenOption.APPEND);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(done) && Files.readAllLines(done).contains(what)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the host side did not carry out '" + what + "' within 20 s");
    }
}
