package org.rdmacm4j.benchmarks;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.RdmaConnection;

/** The bounded waits the benchmark programs share: every wait has a deadline and names what it waited for. */
final class Waits {
    private Waits() {
    }

    /** {@code f}'s value within {@code seconds}, else an IllegalStateException. */
    static <T> T await(CompletableFuture<T> f, long seconds) throws Exception {
        try {
            return f.get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no completion within " + seconds + " s", e);
        }
    }

    /**
     * The next connection the listener's accept callback put in {@code accepted} (polled every
     * millisecond, without blocking the thread in a queue hand-off), within {@code seconds}, else an
     * IllegalStateException saying connection {@code i} was never accepted.
     */
    static RdmaConnection nextAccepted(Queue<RdmaConnection> accepted, int i, long seconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (accepted.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        RdmaConnection s = accepted.poll();
        if (s == null) {
            throw new IllegalStateException("connection " + i + " was never accepted");
        }
        return s;
    }
}
