package org.rdmacm4j.benchmarks;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;

/**
 * A storm of N connections whose ends are counted by callbacks instead of waited for one by one:
 * the storm of {@code -Drdmacm4j.bench.driver=callbacks} ({@link LoneChain}'s shape). The caller
 * starts N connects, then waits once until all 2N ends are established; then closes the N client
 * ends and waits once until all 2N ends are closed, as C's loop issues its connects and
 * disconnects and counts the events that answer them. Every stage runs where the future is
 * completed: the dispatcher, with the direct callback executor the callbacks driver sets.
 *
 * <p>Threads: {@link #setUp} and {@link #tearDown} on the caller's thread; the counting stages on
 * any thread (AtomicInteger counts, ends kept in AtomicReferenceArrays).
 */
final class StormChain {
    private final RdmaCm cm;
    private final InetSocketAddress at;
    private final ConnectOptions options;
    private final int n;
    private final AtomicReferenceArray<RdmaConnection> clients;
    private final AtomicReferenceArray<RdmaConnection> servers;
    private final AtomicInteger clientCount = new AtomicInteger();
    private final AtomicInteger serverCount = new AtomicInteger();
    private final AtomicInteger counted = new AtomicInteger();
    private final Connected connected = new Connected();
    private final Closed closed = new Closed();
    private volatile int goal;
    private volatile CompletableFuture<Void> phase;

    StormChain(RdmaCm cm, InetSocketAddress at, ConnectOptions options, int n) {
        this.cm = cm;
        this.at = at;
        this.options = options;
        this.n = n;
        this.clients = new AtomicReferenceArray<>(n);
        this.servers = new AtomicReferenceArray<>(n);
    }

    /** Where the listener's accept stage gives the server ends during {@link #setUp}. */
    Consumer<RdmaConnection> serverEnds() {
        return new ServerEnd();
    }

    /** Starts N connects and returns once all 2N ends are established; a stall of {@code stallS} fails. */
    void setUp(long stallS) throws Exception {
        begin(2 * n);
        for (int i = 0; i < n; i++) {
            cm.connect(at, options, ConnectionHandler.none()).whenComplete(connected);
        }
        await("set up", stallS);
    }

    /** Closes the N client ends and returns once all 2N ends are closed; a stall of {@code stallS} fails. */
    void tearDown(long stallS) throws Exception {
        begin(2 * n);
        for (int i = 0; i < n; i++) {
            servers.get(i).closeFuture().whenComplete(closed);
        }
        for (int i = 0; i < n; i++) {
            clients.get(i).close().whenComplete(closed);
        }
        await("torn down", stallS);
    }

    private void begin(int ends) {
        counted.set(0);
        goal = ends;
        phase = new CompletableFuture<>();
    }

    /** Waits for the phase; fails if no end was counted for {@code stallS} seconds. */
    private void await(String what, long stallS) throws Exception {
        Waits.awaitWhileMoving(phase, counted::get, stallS,
                () -> "storm (driven from callbacks): " + counted.get() + " of " + goal + " ends " + what);
    }

    private void count() {
        if (counted.incrementAndGet() == goal) {
            phase.complete(null);
        }
    }

    private void fail(Throwable t) {
        phase.completeExceptionally(new IllegalStateException("storm connection failed", t));
    }

    private final class Connected implements BiConsumer<RdmaConnection, Throwable> {
        @Override
        public void accept(RdmaConnection c, Throwable failure) {
            if (failure != null) {
                fail(failure);
                return;
            }
            clients.set(clientCount.getAndIncrement(), c);
            count();
        }
    }

    private final class ServerEnd implements Consumer<RdmaConnection> {
        @Override
        public void accept(RdmaConnection s) {
            servers.set(serverCount.getAndIncrement(), s);
            count();
        }
    }

    private final class Closed implements BiConsumer<Void, Throwable> {
        @Override
        public void accept(Void ignored, Throwable failure) {
            if (failure != null) {
                fail(failure);
                return;
            }
            count();
        }
    }
}
