package org.rdmacm4j.benchmarks;

import java.util.List;
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
     * Every future of {@code fs} done within {@code seconds} in all, else an IllegalStateException.
     * Waits for each in turn rather than on {@code CompletableFuture.allOf}: a thread waiting on an
     * rdmacm4j future is woken by the dispatcher itself, while allOf hangs a dependent on each future,
     * and a dependent runs on the callback executor (docs/api.md): a callback thread's wake-up per
     * future, which the storm's teardown paid 500-1,000 times inside its window (s36-storm2: 6 futex
     * calls and 4 context switches per connection more than C's loop).
     */
    static void awaitEach(List<? extends CompletableFuture<?>> fs, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (CompletableFuture<?> f : fs) {
            try {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException("not all of " + fs.size() + " completions within " + seconds + " s", e);
            }
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
