package org.rdmacm4j.benchmarks;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;

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
     * Waits for {@code f} while {@code progress} keeps moving: fails (IllegalStateException naming
     * {@code stalled}'s text) once it has not moved for {@code stallS} seconds. For waits on many
     * connections at once, where a deadline for the whole would have to be guessed and one per
     * connection is what names a hung one (LoneChain, StormChain).
     */
    static void awaitWhileMoving(CompletableFuture<?> f, java.util.function.IntSupplier progress, long stallS,
                                 java.util.function.Supplier<String> stalled) throws Exception {
        int seen = progress.getAsInt();
        while (true) {
            try {
                f.get(stallS, TimeUnit.SECONDS);
                return;
            } catch (TimeoutException e) {
                int now = progress.getAsInt();
                if (now == seen) {
                    throw new IllegalStateException(stalled.get() + ": nothing moved within " + stallS + " s", e);
                }
                seen = now;
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

    /**
     * Prints what the process knew when a connection of a benchmark loop failed, as {@code failure}
     * lines: the failure, the failing id's history (an RdmaCmException carries it), the listener's
     * recent history (did the request arrive, and what became of it) and the RdmaCm's counters.
     * Why: twice under heavy load a connect's REQ went unanswered past its deadline (docs/benchmarks.md,
     * s37-ab-final and s38-ab-final) and only the active side was printed, which cannot tell a
     * request lost on the wire from one that arrived and was never answered.
     */
    static void printFailure(String what, Throwable failure, RdmaListener listener, RdmaCm cm) {
        var out = new StringBuilder();
        out.append("failure ").append(what).append(": ").append(failure).append('\n');
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof RdmaCmException e) {
                e.history().forEach(h -> out.append("failure history failing-id ").append(h).append('\n'));
                break;
            }
        }
        try {
            listener.history().forEach(h -> out.append("failure history listener ").append(h).append('\n'));
            out.append("failure statistics ").append(cm.statistics()).append('\n');
        } catch (RuntimeException e) {   // a closed RdmaCm or listener: the report says so and goes on
            out.append("failure report incomplete: ").append(e).append('\n');
        }
        System.out.print(out);
        System.out.flush();
    }
}
