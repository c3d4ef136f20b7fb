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

    /** Tells the other role (through the host side) that this one is ready for it, e.g. listening. */
    static void announceReady() throws IOException {
        Files.writeString(out().resolve("ready"), "ready\n");
    }

    /**
     * Waits (bounded) until the other role has announced it is ready. Two TCG guests share the
     * machine's cores, so the other JVM's cold start can take minutes on a loaded machine; a fixed
     * guess at that time is what made this fabric flaky.
     */
    static void awaitPeerReady(Duration atMost) throws InterruptedException {
        Path ready = out().resolve("peer-ready");
        long deadline = System.nanoTime() + atMost.toNanos();
        while (!Files.exists(ready)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the other host did not announce it was ready within " + atMost.toSeconds()
                        + " s");
            }
            Thread.sleep(100);
        }
    }

    /** What this host sees of the network towards {@code host}, for a failure message. */
    static String networkView(String host) {
        try {
            Process p = new ProcessBuilder("sh", "-c", "ping -c 2 -W 2 " + host + " 2>&1; ip neigh 2>&1; "
                    + "rdma link 2>&1").redirectErrorStream(true).start();
            if (!p.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(could not run ping/ip/rdma: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }
}
