package org.rdmacm4j.benchmarks;

import static com.google.common.base.Preconditions.checkArgument;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.RawQueuePair;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.RecvRequests;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcOpcode;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * {@code CmBench pingpong}: the rdmacm4j side of the message round-trip benchmark, the same
 * exchange and wire as {@code benchmarks/src/main/c/msg_pingpong.c} (either end talks to either),
 * through the public API only: a raw RC connection ({@link ConnectOptions.Builder#raw()}, no
 * private data), SENDs and RECVs posted through {@link RdmaConnection#raw()}, their completions
 * delivered to {@link ConnectionHandler#onCompletion} by the library's completion poller (event
 * driven: epoll over the completion channel, {@code ibv_get_cq_event}, re-arm, poll to empty).
 * <ul>
 * <li>{@code pingpong server BIND PORT SIZE}: accepts one connection and echoes every message from
 *     the buffer it arrived in (RECV completion of buffer i: SEND from i; its SEND completion: i
 *     re-posted); exits when the client disconnects.</li>
 * <li>{@code pingpong client SERVER BIND PORT SIZE WARMUP COUNT}: WARMUP untimed and COUNT timed
 *     round trips, one at a time, each from just before the SEND is posted to the moment both its
 *     SEND completion and the reply's RECV completion have been seen; prints
 *     {@code rtt_us min A p50 B p99 C max D}, {@code round_trips/s R} and
 *     {@code wakeups_per_round_trip W} (poller batches that held a completion of ours, per timed round
 *     trip: 1 if the SEND and RECV completions came in one batch, 2 if apart), as the C program.</li>
 * </ul>
 * The client's exchange runs in the completion callback (the poller thread posts the next SEND),
 * as the C client's single thread does after its completion-channel wait: no hop to another
 * thread is measured that the C side does not make. Every wait has a deadline: no progress for
 * {@link #STALL_S} seconds fails.
 */
final class PingPong {
    static final long STALL_S = 60;
    private static final int SERVER_BUFFERS = 4;   // as msg_pingpong.c: one message in flight, spares
    private static final long RECV_ID = 0x10000;    // wr id of a receive: RECV_ID + buffer; a send's: the buffer

    private PingPong() { }

    static void main(String[] args) throws Exception {
        if (args.length == 5 && args[1].equals("server")) {
            server(new InetSocketAddress(InetAddress.getByName(args[2]), port(args[3])), positive(args[4]));
        } else if (args.length == 8 && args[1].equals("client")) {
            int warmup = Integer.parseInt(args[6]);
            checkArgument(warmup >= 0, "WARMUP must be >= 0, was %s", warmup);
            client(new InetSocketAddress(InetAddress.getByName(args[2]), port(args[4])),
                    new InetSocketAddress(InetAddress.getByName(args[3]), 0), positive(args[5]), warmup,
                    positive(args[7]));
        } else {
            System.err.println("usage: CmBench pingpong server BIND PORT SIZE | pingpong client SERVER BIND PORT SIZE WARMUP COUNT");
            System.exit(2);
        }
    }

    private static int port(String s) {
        int p = Integer.parseInt(s);
        checkArgument(p >= 1 && p <= 65535, "port must be in [1, 65535], was %s", s);
        return p;
    }

    private static int positive(String s) {
        int n = Integer.parseInt(s);
        checkArgument(n >= 1, "expected a positive number, was %s", s);
        return n;
    }

    /** The QP both programs create: {@code buffers} of each queue, a CQ that holds both. */
    private static QpCapabilities capabilities(int buffers) {
        return new QpCapabilities(buffers, buffers, 1, 1, 0, 2 * buffers + 2);
    }

    private static void server(InetSocketAddress bind, int size) throws Exception {
        try (RdmaCm cm = CmBench.openRdmaCm(); Arena arena = Arena.ofShared()) {
            var echo = new Echo(arena.allocate((long) SERVER_BUFFERS * slot(size), 64), size);
            var accepted = new CompletableFuture<RdmaConnection>();
            RdmaListener l = cm.listen(bind, ListenOptions.defaults(), r -> {
                if (accepted.isDone()) {
                    r.reject(new byte[0]);
                    return;
                }
                r.accept(echo, AcceptOptions.defaults().raw().qp(capabilities(SERVER_BUFFERS)))
                        .whenComplete((c, e) -> {
                            if (e != null) {
                                accepted.completeExceptionally(e);
                            } else {
                                echo.attach(c);   // the client's first send waits (RNR retry) until these receives
                                accepted.complete(c);
                            }
                        });
            });
            System.out.println("pingpong: listening on " + l.localAddress());
            RdmaConnection c = await(accepted, TimeUnit.SECONDS.toNanos(STALL_S), "a connection");
            await(l.close(), TimeUnit.SECONDS.toNanos(STALL_S), "the listener's close");
            long seen = -1, lastProgress = System.nanoTime();
            while (!c.closeFuture().isDone()) {   // until the client disconnects, as long as messages come
                echo.failure.ifPresent(f -> { throw new IllegalStateException(f); });
                long now = echo.echoed.get();
                if (now != seen) {
                    seen = now;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(STALL_S)) {
                    throw new IllegalStateException("no message for " + STALL_S + " s after " + seen);
                }
                try {
                    c.closeFuture().get(200, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // not closed yet: check progress again
                }
            }
            echo.failure.ifPresent(f -> { throw new IllegalStateException(f); });
            System.out.println("pingpong: echoed " + echo.echoed.get() + " messages");
            echo.free();
        }
    }

    private static void client(InetSocketAddress at, InetSocketAddress from, int size, int warmup, int count)
            throws Exception {
        try (RdmaCm cm = CmBench.openRdmaCm(); Arena arena = Arena.ofShared()) {
            var exchange = new Exchange(arena.allocate(2L * slot(size), 64), size, warmup, count);
            RdmaConnection c = await(cm.connect(at, ConnectOptions.builder().raw().qp(capabilities(2)).source(from)
                    .build(), exchange), TimeUnit.SECONDS.toNanos(STALL_S), "the connection");
            exchange.attach(c);
            exchange.start();
            long seen = -1, lastProgress = System.nanoTime();
            while (!exchange.done.isDone()) {
                long now = exchange.round;
                if (now != seen) {
                    seen = now;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(STALL_S)) {
                    throw new IllegalStateException("round trip " + seen + " not done within " + STALL_S + " s");
                }
                try {
                    exchange.done.get(200, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // not done yet: check progress again
                }
            }
            long loopNanos = exchange.done.get();
            double[] rtt = exchange.rttMicros();
            Arrays.sort(rtt);
            System.out.printf("pingpong size %d warmup %d count %d%n", size, warmup, count);
            System.out.printf("rtt_us min %.2f p50 %.2f p99 %.2f max %.2f%n", rtt[0], percentile(rtt, 0.50),
                    percentile(rtt, 0.99), rtt[count - 1]);
            System.out.printf("round_trips/s %.1f%n", count / (loopNanos / 1e9));
            System.out.printf("wakeups_per_round_trip %.2f%n", exchange.batches / (double) count);
            exchange.deregister();
            await(c.close(), TimeUnit.SECONDS.toNanos(STALL_S), "the close");
            exchange.free();
        }
    }

    /**
     * Nearest rank, as msg_pingpong.c: the smallest value with at least p of the samples at or below
     * it. Kept rather than Guava's Quantiles, which interpolates between ranks (R's type 7): the
     * report divides this figure by the C program's, so both must be the same statistic.
     */
    static double percentile(double[] sorted, double p) {
        int rank = Math.max(1, (int) (p * sorted.length + 0.999999));
        return sorted[Math.min(rank, sorted.length) - 1];
    }

    private static long slot(int size) {
        return (size + 63L) / 64 * 64;
    }

    private static <T> T await(CompletableFuture<T> f, long nanos, String what) throws Exception {
        try {
            return f.get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no " + what + " within " + nanos / 1_000_000_000 + " s", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
        }
    }

    /**
     * The buffers and the region of one end. {@link #attach} runs once, before any completion can
     * arrive (it posts the first receives); the completion callbacks then run on the connection's
     * poller thread only, which alone uses {@link #send} and {@link #recv}.
     */
    private abstract static class End implements ConnectionHandler {
        final MemorySegment buffers;
        final int size;
        final SendRequests send = SendRequests.allocate(1, 1);
        final RecvRequests recv = RecvRequests.allocate(1, 1);
        volatile RawQueuePair raw;
        volatile MemoryRegion mr;
        volatile boolean closing;

        End(MemorySegment buffers, int size) {
            this.buffers = buffers;
            this.size = size;
        }

        void register(RdmaConnection c) {
            raw = c.raw();
            mr = raw.protectionDomain().register(buffers, Access.LOCAL_WRITE);
        }

        /** Posts a SEND of {@code length} bytes from buffer {@code i}; {@code wr} is the caller thread's. */
        void postSend(SendRequests wr, int i, int length) {
            raw.queuePair().postSend(wr.set(0, i, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, mr, i * slot(size),
                    length), 1);
        }

        void postRecv(RecvRequests wr, int i) {
            raw.queuePair().postRecv(wr.set(0, RECV_ID + i).sge(0, 0, mr, i * slot(size), size), 1);
        }

        /** Our region goes before the connection's teardown, which may free the protection domain. */
        synchronized void deregister() {
            closing = true;   // flushed work requests are no failure from here on
            if (mr != null) {
                mr.close();
                mr = null;
            }
        }

        /** Once the connection is closed: nothing posts or completes any more. */
        void free() {
            deregister();
            send.close();
            recv.close();
        }

        @Override public void onDisconnected(RdmaConnection c) { deregister(); }
        @Override public void onError(RdmaConnection c, RdmaCmException e) { deregister(); }
    }

    /** The server's end: echoes each message from the buffer it arrived in. */
    private static final class Echo extends End {
        final AtomicLong echoed = new AtomicLong();
        volatile java.util.Optional<String> failure = java.util.Optional.empty();

        Echo(MemorySegment buffers, int size) {
            super(buffers, size);
        }

        void attach(RdmaConnection c) {
            register(c);
            try (RecvRequests wr = RecvRequests.allocate(1, 1)) {
                for (int i = 0; i < SERVER_BUFFERS; i++) {
                    postRecv(wr, i);
                }
            }
        }

        @Override public void onCompletion(RdmaConnection c, WorkCompletions wc, int i) {
            if (wc.status(i) != WcStatus.SUCCESS) {
                // The client's disconnect moves our QP to error, which flushes the posted receives,
                // possibly before onDisconnected has run: a flush is the end, not a failure.
                if (!closing && wc.status(i) != WcStatus.WR_FLUSH_ERR) {
                    failure = java.util.Optional.of("work completion " + wc.status(i) + " (wr id " + wc.wrId(i) + ")");
                }
            } else if (wc.opcode(i) == WcOpcode.RECV) {
                postSend(send, (int) (wc.wrId(i) - RECV_ID), wc.byteLength(i));
                echoed.incrementAndGet();
            } else {
                postRecv(recv, (int) wc.wrId(i));
            }
        }
    }

    /**
     * The client's end: buffer 0 sends, buffer 1 receives. Round trip r starts with its SEND posted
     * (the first by {@link #start}, the rest by the callback that ends the one before) and ends
     * when the callback has seen both completions.
     */
    private static final class Exchange extends End {
        final CompletableFuture<Long> done = new CompletableFuture<>();   // the timed loop's nanoseconds
        private final int warmup, count;
        private final long[] rtt;
        private long t0, loop0;
        private boolean sent, replied;
        long batches;   // callbacks at index 0 (the first of a poll batch) in the timed round trips
        volatile int round;   // written by the callback, read by the main thread's stall check

        Exchange(MemorySegment buffers, int size, int warmup, int count) {
            super(buffers, size);
            this.warmup = warmup;
            this.count = count;
            rtt = new long[count];
        }

        void attach(RdmaConnection c) {
            register(c);
            try (RecvRequests wr = RecvRequests.allocate(1, 1)) {
                postRecv(wr, 1);
            }
        }

        /** The first round trip, from the main thread; no completion can arrive before its SEND. */
        void start() {
            loop0 = warmup == 0 ? System.nanoTime() : 0;
            try (SendRequests wr = SendRequests.allocate(1, 1)) {
                t0 = System.nanoTime();
                round = 0;   // volatile: the callback reads it before t0 and loop0, so it sees them
                postSend(wr, 0, size);
            }
        }

        @Override public void onCompletion(RdmaConnection c, WorkCompletions wc, int i) {
            if (done.isDone()) {
                return;
            }
            if (i == 0 && round >= warmup) {
                batches++;
            }
            if (wc.status(i) != WcStatus.SUCCESS) {
                if (!closing) {
                    done.completeExceptionally(new IllegalStateException("work completion " + wc.status(i)
                            + " (wr id " + wc.wrId(i) + ")"));
                }
                return;
            }
            if (wc.opcode(i) == WcOpcode.SEND) {
                sent = true;
            } else if (wc.byteLength(i) != size) {
                done.completeExceptionally(new IllegalStateException("reply of " + wc.byteLength(i)
                        + " bytes, expected " + size));
                return;
            } else {
                replied = true;
                postRecv(recv, 1);   // before the next send: the next reply always finds it
            }
            if (sent && replied) {
                long t1 = System.nanoTime();
                int r = round;
                if (r >= warmup) {
                    rtt[r - warmup] = t1 - t0;
                }
                round = ++r;
                if (r == warmup + count) {
                    done.complete(t1 - loop0);
                    return;
                }
                if (r == warmup) {
                    loop0 = System.nanoTime();
                }
                sent = false;
                replied = false;
                t0 = System.nanoTime();
                postSend(send, 0, size);
            }
        }

        /** After {@link #done}: the timed round trips in microseconds. */
        double[] rttMicros() {
            return Arrays.stream(rtt).mapToDouble(n -> n / 1e3).toArray();
        }
    }
}
