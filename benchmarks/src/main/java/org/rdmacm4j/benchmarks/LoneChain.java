package org.rdmacm4j.benchmarks;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;

/**
 * Lone connections one after another, each started from the callback that saw the one before it
 * closed: the shape of C's event loop ({@code cm_event_loop warm}), where one thread reacts to each
 * event and no caller waits. CmBench's {@code -Drdmacm4j.bench.driver=callbacks} runs the warm
 * group's lone connections through it, on an RdmaCm whose callback executor runs tasks where they
 * are given (a direct executor, docs/api.md): so every step after the first connect() runs on the
 * dispatcher thread, as the application asked, and the process has no caller or callback thread to
 * wake per connection. The default driver ({@code caller}) is the blocking form: a caller thread
 * connects, waits, closes and waits.
 *
 * <p>Per connection: connect(); when the client end is established and the server end accepted
 * (either may come first), close the client end; when both ends are closed, record the times and
 * start the next. Times are {connect called, client established, close called, both closed} in ns,
 * as CmBench's caller-driven lone connections record them.
 *
 * <p>Threads: {@link #run} on the caller's thread starts a segment and waits for it; everything
 * else runs on whichever thread completes the futures (the dispatcher with a direct executor; the
 * caller's own thread if a future was already complete when a stage was attached). The two
 * arrivals that must meet (client established, server accepted; client closed, server closed) are
 * counted on an AtomicInteger, so whichever comes second goes on, on any thread.
 */
final class LoneChain {
    private final RdmaCm cm;
    private final InetSocketAddress at;
    private final ConnectOptions options;
    private final long[][] times;
    /** One named object for each stage kind, made once: no lambda allocated or spun per connection. */
    private final Connected connected = new Connected();
    private final Closed closed = new Closed();
    private final AtomicInteger arrivals = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();
    private volatile RdmaConnection client;
    private volatile RdmaConnection server;
    private volatile int current;
    private volatile int end;
    private volatile CompletableFuture<Void> segment;
    /** The thread in {@link #run}: stages that ran there are counted, to show the program's shape. */
    private volatile Thread caller;
    private final AtomicInteger stagesOnCaller = new AtomicInteger();

    LoneChain(RdmaCm cm, InetSocketAddress at, ConnectOptions options, long[][] times) {
        this.cm = cm;
        this.at = at;
        this.options = options;
        this.times = times;
    }

    /** Where the listener's accept stage gives the server ends while a segment runs. */
    Consumer<RdmaConnection> serverEnds() {
        return new ServerEnd();
    }

    /**
     * Runs connections {@code from} (inclusive) to {@code to} (exclusive) one after another and
     * returns once the last has closed. Each connection must finish within {@code perConnectionS}
     * seconds of the one before (a hung connection is named, not waited for forever).
     */
    void run(int from, int to, long perConnectionS) throws Exception {
        if (from >= to) {
            return;
        }
        var done = new CompletableFuture<Void>();
        caller = Thread.currentThread();
        segment = done;
        end = to;
        start(from);
        Waits.awaitWhileMoving(done, completed::get, perConnectionS,
                () -> "lone connection " + current + " (driven from callbacks) did not finish");
    }

    /**
     * Stages (client established, server accepted, an end closed) that ran on the thread waiting in
     * {@link #run} rather than on the dispatcher: a stage attached to a future already done runs on
     * the attaching thread. Expected near zero in the guest; printed by CmBench.
     */
    int stagesOnCaller() {
        return stagesOnCaller.get();
    }

    private void onCaller() {
        if (Thread.currentThread() == caller) {
            stagesOnCaller.incrementAndGet();
        }
    }

    private void start(int i) {
        current = i;
        client = null;
        server = null;
        arrivals.set(0);
        times[i] = new long[4];
        times[i][0] = System.nanoTime();
        try {
            cm.connect(at, options, ConnectionHandler.none()).whenComplete(connected);
        } catch (RuntimeException e) {
            segment.completeExceptionally(e);
        }
    }

    private void arrived() {
        if (arrivals.incrementAndGet() == 2) {
            arrivals.set(0);
            RdmaConnection c = client;
            RdmaConnection s = server;
            times[current][2] = System.nanoTime();
            c.close().whenComplete(closed);
            s.closeFuture().whenComplete(closed);
        }
    }

    private void fail(Throwable t) {
        segment.completeExceptionally(new IllegalStateException("lone connection " + current + " failed", t));
    }

    private final class Connected implements BiConsumer<RdmaConnection, Throwable> {
        @Override
        public void accept(RdmaConnection c, Throwable failure) {
            if (failure != null) {
                fail(failure);
                return;
            }
            times[current][1] = System.nanoTime();
            onCaller();
            client = c;
            arrived();
        }
    }

    private final class ServerEnd implements Consumer<RdmaConnection> {
        @Override
        public void accept(RdmaConnection s) {
            onCaller();
            server = s;
            arrived();
        }
    }

    private final class Closed implements BiConsumer<Void, Throwable> {
        @Override
        public void accept(Void ignored, Throwable failure) {
            if (failure != null) {
                fail(failure);
                return;
            }
            onCaller();
            if (arrivals.incrementAndGet() < 2) {
                return;
            }
            int i = current;
            times[i][3] = System.nanoTime();
            completed.incrementAndGet();
            if (i + 1 < end) {
                start(i + 1);
            } else {
                segment.complete(null);
            }
        }
    }
}
