package org.rdmacm4j.examples;

import com.google.common.math.Quantiles;
import com.google.common.primitives.Longs;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicLong;
import org.rdmacm4j.cm.core.*;

/**
 * Echo over rdmacm4j messages: the server sends every message back; the client connects, sends
 * messages of several sizes, checks every byte of every echo, and prints the connect time, the
 * round-trip latency percentiles and the throughput with a window of messages in flight. Without
 * {@code -s} or {@code -c} one process runs both (the demo). Public API only.
 */
public final class Echo {
    private static final String USAGE = """
            usage: echo [-s | -c] [-a address] [-b source] [-p port] [-n count] [-S sizes] [-w window] [-C count] [-t s]
              (neither -s nor -c)  demo: a server on -a and a client from -b in one process
              -s          server: echo every message; exit after -C connections have closed
              -c          client: connect to -a:-p, measure, close
              -a address  server address (default 192.0.2.1)
              -b address  client source address (default: any; the demo uses 192.0.2.3)
              -p port     server port (default 7480; the demo takes any free port)
              -n count    round trips per size, and messages per size streamed (default 1000)
              -S sizes    message sizes in bytes, comma-separated (default 1,64,512,4096; at most 4096)
              -w window   messages in flight while streaming (default 16)
              -C count    server: connections to serve before exiting (default 1; 0: forever)
              -t seconds  deadline of the connect and of every echo (default 30)""";

    private Echo() { }

    public static void main(String[] args) throws Exception {
        Cli cli = Cli.parse("echo", USAGE, args, "-a -b -p -n -S -w -C -t", "-s -c");
        cli.require(!(cli.has("-s") && cli.has("-c")), "give at most one of -s and -c");
        String mode = cli.has("-s") ? "server" : cli.has("-c") ? "client" : "demo";
        String server = cli.get("-a", "192.0.2.1"), source = cli.get("-b", null), sizes = cli.get("-S", "1,64,512,4096");
        int port = cli.integer("-p", -1, 0, 65535), n = cli.integer("-n", 1000, 1, Integer.MAX_VALUE);
        int window = cli.integer("-w", 16, 1, 1 << 16), conns = cli.integer("-C", 1, 0, Integer.MAX_VALUE);
        int seconds = cli.integer("-t", 30, 1, 86_400);
        cli.require(sizes.matches("\\d+(,\\d+)*"), "-S takes sizes like 1,64,512");
        int[] sizeList = Arrays.stream(sizes.split(",")).mapToInt(Integer::parseInt).toArray();
        Duration wait = Duration.ofSeconds(seconds);
        try (RdmaCm cm = RdmaCm.open()) {
            InetAddress serverAddr = InetAddress.getByName(server);
            switch (mode) {
                case "server" -> serve(cm, new InetSocketAddress(serverAddr, port < 0 ? 7480 : port), conns);
                case "client" -> client(cm, new InetSocketAddress(serverAddr, port < 0 ? 7480 : port), source,
                        sizeList, n, window, wait);
                default -> {
                    CountDownLatch done = new CountDownLatch(1);
                    RdmaListener l = listen(cm, new InetSocketAddress(serverAddr, Math.max(port, 0)), done);
                    client(cm, new InetSocketAddress(serverAddr, l.localAddress().getPort()),
                            source == null ? "192.0.2.3" : source, sizeList, n, window, wait);
                    done.await(seconds, TimeUnit.SECONDS);
                    l.close().get(seconds, TimeUnit.SECONDS);
                }
            }
        } catch (ExecutionException | TimeoutException | RdmaCmException | Failure e) {
            Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String what = t instanceof TimeoutException ? "timed out after " + seconds + " s" : t.getMessage();
            System.err.println("echo: FAILED: " + (what == null ? t.toString() : what.lines().findFirst().orElse("")));
            System.exit(1);
        }
        System.out.println("echo: done, every native object freed");
    }

    static void serve(RdmaCm cm, InetSocketAddress address, int conns) throws Exception {
        CountDownLatch done = new CountDownLatch(conns == 0 ? Integer.MAX_VALUE : conns);
        RdmaListener l = listen(cm, address, done);
        System.out.println("echo: server listening on " + l.localAddress().getAddress().getHostAddress() + ":"
                + l.localAddress().getPort());
        done.await();
        l.close().get(30, TimeUnit.SECONDS);
    }

    static RdmaListener listen(RdmaCm cm, InetSocketAddress address, CountDownLatch done) {
        return cm.listen(address, ListenOptions.defaults(), request -> {
            AtomicLong messages = new AtomicLong(), bytes = new AtomicLong();
            request.accept(new ConnectionHandler() {
                @Override public void onMessage(RdmaConnection c, MemorySegment message) {
                    messages.incrementAndGet();
                    bytes.addAndGet(message.byteSize());
                    if (!c.offer(message)) {   // the client keeps fewer in flight than its credits: never full
                        System.out.println("echo: server: send queue full, aborting " + c.peerAddress());
                        c.abort();
                    }
                }
                @Override public void onError(RdmaConnection c, RdmaCmException e) {
                    System.out.println("echo: server: connection failed: " + e.getMessage().lines().findFirst().orElse(""));
                }
                @Override public void onClosed(RdmaConnection c) {
                    System.out.printf("echo: server: %s closed; %,d messages (%,d bytes) echoed%n",
                            c.peerAddress().getAddress().getHostAddress(), messages.get(), bytes.get());
                    done.countDown();
                }
            });
        });
    }

    static void client(RdmaCm cm, InetSocketAddress server, String source, int[] sizes, int n, int window,
                       Duration wait) throws Exception {
        ArrayBlockingQueue<byte[]> echoes = new ArrayBlockingQueue<>(4096);
        ConnectionHandler handler = new ConnectionHandler() {
            @Override public void onMessage(RdmaConnection c, MemorySegment message) {
                echoes.add(message.toArray(ValueLayout.JAVA_BYTE));
            }
        };
        ConnectOptions.Builder options = ConnectOptions.builder().timeout(wait);
        if (source != null) {
            options.source(new InetSocketAddress(InetAddress.getByName(source), 0));
        }
        long t0 = System.nanoTime();
        RdmaConnection c;
        try {
            c = cm.connect(server, options.build(), handler).get(wait.toSeconds() + 30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new Failure("cannot connect to " + server.getAddress().getHostAddress() + ":" + server.getPort()
                    + ": " + e.getCause().getMessage().lines().findFirst().orElse(""));
        }
        System.out.printf("echo: connected %s -> %s in %.1f ms (address, route, CM handshake; max message %d B)%n",
                c.localAddress().getAddress().getHostAddress(), server.getAddress().getHostAddress() + ":"
                        + server.getPort(), (System.nanoTime() - t0) / 1e6, c.maxMessageSize());
        System.out.printf("echo: %6s %8s %9s %9s %9s | %8s %10s %9s%n", "size", "round", "p50 µs", "p99 µs",
                "max µs", "streamed", "msgs/s", "MB/s");
        long seq = 0, total = 0;
        for (; seq < n / 5; seq++) {   // warm-up (class loading, JIT), not measured
            c.send(fill(sizes[0], seq));
            check(take(echoes, c, wait, seq), sizes[0], seq);
        }
        for (int size : sizes) {
            if (size < 1 || size > c.maxMessageSize()) {
                throw new Failure("size " + size + " is outside 1.." + c.maxMessageSize());
            }
            long[] rtt = new long[n];
            for (int i = 0; i < n; i++, seq++) {
                long s = System.nanoTime();
                c.send(fill(size, seq));
                check(take(echoes, c, wait, seq), size, seq);
                rtt[i] = System.nanoTime() - s;
            }
            long s = System.nanoTime(), sent = seq, checked = seq;
            for (; sent < checked + Math.min(window, n); sent++) {
                c.send(fill(size, sent));
            }
            for (; checked < seq + n; checked++) {
                check(take(echoes, c, wait, checked), size, checked);
                if (sent < seq + n) {
                    c.send(fill(size, sent++));
                }
            }
            double secs = (System.nanoTime() - s) / 1e9;
            seq = checked;
            total += 2L * n;
            Map<Integer, Double> p = Quantiles.percentiles().indexes(50, 99).compute(rtt);
            System.out.printf("echo: %6d %8d %9.1f %9.1f %9.1f | %8d %,10.0f %9.2f%n", size, n, p.get(50) / 1e3,
                    p.get(99) / 1e3, Longs.max(rtt) / 1e3, n, n / secs,
                    n * (double) size / secs / 1e6);
        }
        System.out.printf("echo: %,d messages echoed, every byte checked (after %d warm-up round trips; round trips"
                + " one at a time; streamed with %d in flight)%n", total + n / 5, n / 5, window);
        long s = System.nanoTime();
        c.close().get(wait.toSeconds() + 5, TimeUnit.SECONDS);
        System.out.printf("echo: closed gracefully in %.1f ms%n", (System.nanoTime() - s) / 1e6);
    }

    static byte[] fill(int size, long seq) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (seq * 131 + i * 7 + size);
        }
        return b;
    }

    static byte[] take(ArrayBlockingQueue<byte[]> echoes, RdmaConnection c, Duration wait, long seq) throws Exception {
        byte[] b = echoes.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        if (b == null) {
            throw new Failure("no echo of message #" + seq + " within " + wait.toSeconds() + " s"
                    + (c.isClosed() ? " (the connection is closed)" : ""));
        }
        return b;
    }

    static void check(byte[] echo, int size, long seq) throws Failure {
        byte[] want = fill(size, seq);
        int at = Arrays.mismatch(echo, want);
        if (at >= 0) {
            throw new Failure("the echo of message #" + seq + " (" + size + " B) differs at byte " + at
                    + " (got " + echo.length + " B)");
        }
    }
}
