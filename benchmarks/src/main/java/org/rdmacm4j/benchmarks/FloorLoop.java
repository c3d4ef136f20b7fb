package org.rdmacm4j.benchmarks;

/**
 * The driver of the C event loop's runs ({@code cm_event_loop.c}'s main), shared by the two Java
 * floors, {@link FfmFloor} and {@link VerbsFloor}: K lone connections, each set up and closed at both
 * ends before the next, with a {@link Window} over connections FROM..K; then a storm of N in the same
 * process; the C loop's arguments ({@link Args}) and output lines ({@link #run}). A floor supplies the
 * set-up, the three steps and the close over its own bindings, and counts in its event handling.
 * One thread.
 */
abstract class FloorLoop {
    /**
     * The floors' arguments, as the C loop takes them: {@code latency SERVER CLIENT PORT K},
     * {@code warm SERVER CLIENT PORT K FROM N} or {@code storm SERVER CLIENT PORT N}; K = 0 and FROM = 0
     * where a mode has none. Bad arguments print the usage and exit 2.
     */
    record Args(String server, String client, int port, int k, int from, int stormN) {
        /** The arguments of {@code program}, or IllegalArgumentException saying what is wrong. */
        static Args parse(String program, String[] args) {
            String mode = args.length > 0 ? args[0] : "";
            int expected = switch (mode) {
                case "latency", "storm" -> 5;
                case "warm" -> 7;
                default -> -1;
            };
            if (args.length != expected) {
                throw new IllegalArgumentException("usage: " + program + " latency SERVER CLIENT PORT K"
                        + " | warm SERVER CLIENT PORT K FROM N | storm SERVER CLIENT PORT N");
            }
            int port = Integer.parseInt(args[3]);
            int k = mode.equals("storm") ? 0 : Integer.parseInt(args[4]);
            int from = mode.equals("warm") ? Integer.parseInt(args[5]) : 0;
            int stormN = switch (mode) {
                case "warm" -> Integer.parseInt(args[6]);
                case "storm" -> Integer.parseInt(args[4]);
                default -> 0;
            };
            boolean bad = port < 1 || port > 65_535 || (mode.equals("storm") ? stormN < 1 : k < 1)
                    || (mode.equals("warm") && (from < 1 || from > k || stormN < 1));
            if (bad) {
                throw new IllegalArgumentException(program + ": PORT in 1..65535, K and N at least 1, 1 <= FROM <= K");
            }
            return new Args(args[1], args[2], port, k, from, stormN);
        }

        /** {@link #parse}, or the message on stderr and exit status 2. */
        static Args parseOrExit(String program, String[] args) {
            try {
                return parse(program, args);
            } catch (IllegalArgumentException e) {   // NumberFormatException included
                System.err.println(e.getMessage());
                System.exit(2);
                throw e;
            }
        }
    }

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

    /** The event channel in an epoll set and the listener, as C's main() makes them. */
    abstract void open() throws Throwable;

    /** The listener destroyed, as C's main() ends. */
    abstract void close() throws Throwable;

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

    /** C's main(): open, the lone connections, the storm if the mode has one, close, then the lines. */
    final void run(Args a) throws Throwable {
        InsnMark.prepare();
        Window.prepare();
        open();
        lone(a.k(), a.from());
        double[] storm = a.stormN() > 0 ? storm(a.k(), a.stormN()) : null;
        close();
        print(a.stormN(), storm);
    }

    /** The C loop's output lines, written once the connections are done: latency_us I T, then the storm's. */
    private void print(int stormN, double[] storm) {
        var lines = new StringBuilder(latencyNanos.length * 24 + 64);
        for (int i = 0; i < latencyNanos.length; i++) {
            lines.append("latency_us ").append(i).append(' ')
                    .append(String.format("%.1f", latencyNanos[i] / 1e3)).append('\n');
        }
        if (storm != null) {
            lines.append(String.format("storm n %d setup_s %.6f teardown_s %.6f%n", stormN, storm[0], storm[1]));
        }
        System.out.print(lines);
        System.out.flush();
    }
}
