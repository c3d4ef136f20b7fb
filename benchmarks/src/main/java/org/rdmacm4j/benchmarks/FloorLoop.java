package org.rdmacm4j.benchmarks;

/**
 * The driver of the C event loop's runs ({@code cm_event_loop.c}'s main), shared by the two Java
 * floors, {@link FfmFloor} and {@link VerbsFloor}: K lone connections, each set up and closed at both
 * ends before the next, with a {@link Window} over connections FROM..K; then a storm of N in the same
 * process. A floor supplies the three steps over its own bindings, and counts in its event handling.
 * One thread.
 */
abstract class FloorLoop {
    /** Client ends established, and ends disconnected (both sides), as the C loop counts them. */
    protected long established;
    protected long disconnected;
    private long startNanos;
    private long lastLatency;
    /** rdma_create_id of each lone connection's client id to its ESTABLISHED event. */
    final long[] latencyNanos;

    FloorLoop(int k) {
        latencyNanos = new long[k];
    }

    /** Creates connection {@code index}'s client id and starts resolving; call {@link #started()} first. */
    abstract void startConnect(int index) throws Throwable;

    /** Waits for the channel (60 s at most, else exit 3) and handles every event it has. */
    abstract void pump() throws Throwable;

    /** rdma_disconnect of connection {@code index}'s client id. */
    abstract void disconnect(int index) throws Throwable;

    /** The clock read at a connection's start (before its rdma_create_id). */
    protected final void started() {
        startNanos = System.nanoTime();
    }

    /** A client end's ESTABLISHED: counted, and its latency kept. */
    protected final void clientEstablished() {
        established++;
        lastLatency = System.nanoTime() - startNanos;
    }

    /** K lone connections; with {@code from} >= 1, a Window over connections FROM..K (1-based). */
    final void lone(int k, int from) throws Throwable {
        Window w = null;
        for (int i = 0; i < k; i++) {
            if (from >= 1 && i == from - 1) {
                w = Window.open();
            }
            startConnect(i);
            while (established < i + 1) {
                pump();
            }
            latencyNanos[i] = lastLatency;
            disconnect(i);
            while (disconnected < 2L * (i + 1)) {
                pump();
            }
        }
        if (w != null) {
            w.close(k - from + 1);
        }
    }

    /** The storm after K lone connections: N connects at once, then all disconnected; {setup s, teardown s}. */
    final double[] storm(int k, int n) throws Throwable {
        long s0 = System.nanoTime();
        for (int i = k; i < k + n; i++) {
            startConnect(i);
        }
        while (established < k + n) {
            pump();
        }
        long s1 = System.nanoTime();
        for (int i = k; i < k + n; i++) {
            disconnect(i);
        }
        while (disconnected < 2L * (k + n)) {
            pump();
        }
        long s2 = System.nanoTime();
        return new double[] {(s1 - s0) / 1e9, (s2 - s1) / 1e9};
    }
}
