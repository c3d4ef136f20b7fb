package org.rdmacm4j.examples;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.rdmacm4j.examples.RpingWire.BE32;
import static org.rdmacm4j.examples.RpingWire.BE64;
import static org.rdmacm4j.examples.RpingWire.pattern;
import static org.rdmacm4j.examples.RpingWire.text;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.*;
import org.rdmacm4j.cm.core.*;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.verbs.ibv.*;

/**
 * rdma-core's rping on rdmacm4j's raw access, wire compatible with it: the client advertises its
 * ping buffer (16 bytes: be64 address, be32 rkey, be32 size) in a SEND, the server RDMA READs the
 * ping, says "go ahead", the client advertises its sink, the server RDMA WRITEs the ping back and
 * says "go ahead" again. Pings are {@code rdma-ping-N: } then letters cycling from 'A'.
 */
public final class Rping {
    private static final String USAGE = """
            usage: rping -s [-vVdP] [-S size] [-C count] [-a addr] [-p port]
                   rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]
              -s server (one client; -P: any number)   -c client   -a address   -I client source address
              -p port (7174)   -C pings (client; default: until stopped)   -S ping size (23..65536, default 64)
              -v print the ping data   -V validate it   -d debug output""";
    private static final int SEND = 0, RECV = 16, START = 64;   // offsets in the one registered buffer
    private static final int MIN_SIZE = 23, MAX_SIZE = 65536;
    private static final Duration STEP = Duration.ofSeconds(60);
    private static boolean server, client, verbose, validate, debug, persistent;
    private static String address, source;
    private static int port, count, size;


    /** A completion (opcode, status, a RECV's bytes) or the end of the connection (opcode null). */
    private record Event(WcOpcode opcode, WcStatus status, byte[] received, String why) { }

    /** An expected failure: printed as one line, exit status 1. */
    private static final class Failure extends Exception {
        Failure(String message) { super(message, null, false, false); }
    }

    public static void main(String[] args) throws Exception {
        Cli cli = Cli.parse("rping", USAGE, args, "-a -I -p -C -S", "-s -c -v -V -d -P");
        server = cli.has("-s");
        client = cli.has("-c");
        verbose = cli.has("-v");
        validate = cli.has("-V");
        debug = cli.has("-d");
        persistent = cli.has("-P");
        address = cli.get("-a", null);
        source = cli.get("-I", null);
        port = cli.integer("-p", 7174, 1, 65535);
        count = cli.integer("-C", 0, 0, Integer.MAX_VALUE);
        size = cli.integer("-S", 64, MIN_SIZE, MAX_SIZE);
        cli.require(server != client, "give one of -s and -c");
        cli.require(server || address != null, "the client needs -a address");
        try (RdmaCm cm = RdmaCm.open()) {
            if (server) serve(cm); else ping(cm);
        } catch (Failure e) {
            System.err.println("rping: " + e.getMessage());
            System.exit(1);
        } catch (RdmaCmException | java.io.IOException | ExecutionException | TimeoutException | InterruptedException e) {
            Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String m = t instanceof ConnectionRejectedException r ? "rejected (" + r.reason() + ")" : String.valueOf(t.getMessage());
            System.err.println("rping: " + t.getClass().getSimpleName() + ": " + (debug ? m : m.lines().findFirst().orElse("")));
            System.exit(1);
        }
    }

    private static void ping(RdmaCm cm) throws Exception {
        var b = ConnectOptions.builder().raw().timeout(Duration.ofSeconds(30)).retries(RetryPolicy.never())
                .tuning(new CmTuning(1, 1, 7, 7));
        if (source != null) b.source(new InetSocketAddress(InetAddress.getByName(source), 0));
        try (Session s = new Session()) {
            s.start(cm.connect(new InetSocketAddress(InetAddress.getByName(address), port), b.build(), s));
            MemorySegment start = s.mem.asSlice(START, size), sink = s.mem.asSlice(START + size, size);
            for (int ping = 0; count == 0 || ping < count; ping++) {
                start.copyFrom(MemorySegment.ofArray(pattern(ping, size)));
                s.advertise(start);
                s.await(WcOpcode.RECV, "the server's go ahead after its RDMA READ");
                s.advertise(sink);
                s.await(WcOpcode.RECV, "the server's go ahead after its RDMA WRITE");
                if (validate && start.mismatch(sink) >= 0) throw new Failure("data mismatch! ping " + ping);
                if (verbose) System.out.println("ping data: " + text(sink));
            }
        }   // closes the connection, then frees the buffers
    }

    private static void serve(RdmaCm cm) throws Exception {
        InetSocketAddress at = address == null ? new InetSocketAddress(port) : new InetSocketAddress(InetAddress.getByName(address), port);
        RdmaListener listener = cm.listen(at, ListenOptions.defaults().withTuning(new CmTuning(1, 1, 7, 7)));
        debug("rdma_listen on %s", listener.localAddress());
        do {
            ConnectionRequest request = listener.next().get();
            Session s = new Session();
            debug("connect request from %s", request.peerAddress());
            CompletableFuture<RdmaConnection> accepted = request.accept(s, AcceptOptions.defaults().raw());
            if (!persistent) { serveOne(s, accepted); break; }
            Thread.ofVirtual().start(() -> {
                try { serveOne(s, accepted); } catch (Exception e) { System.err.println("rping: " + e.getMessage()); }
            });
        } while (true);
    }

    private static void serveOne(Session s, CompletableFuture<RdmaConnection> accepted) throws Exception {
        try (s) {
            s.start(accepted);
            MemorySegment buf = s.mem.asSlice(START, size);
            for (int ping = 0; ; ping++) {
                Event next = s.awaitOrEnd();
                if (next.opcode() == null) break;   // the client disconnected between pings: done
                if (next.opcode() != WcOpcode.RECV) throw new Failure("a " + next.opcode() + " completion between pings");
                MemorySegment info = MemorySegment.ofArray(next.received());
                long addr = info.get(BE64, 0); int rkey = info.get(BE32, 8), len = info.get(BE32, 12);
                debug("Received rkey %x addr %x len %d from peer", rkey, addr, len);
                if (len <= 0 || len > size) throw new Failure("the client's pings are " + len + " bytes; this server's -S is " + size);
                s.post(WrOpcode.RDMA_READ, START, len, addr, rkey);
                s.await(WcOpcode.RDMA_READ, "the RDMA READ of the ping");
                if (validate && buf.asSlice(0, len).mismatch(MemorySegment.ofArray(pattern(ping, len))) >= 0) {
                    throw new Failure("data mismatch! ping " + ping + ": " + text(buf));
                }
                if (verbose) System.out.println("server ping data: " + text(buf));
                s.post(WrOpcode.SEND, SEND, 16, 0, 0);   // go ahead
                info = s.await(WcOpcode.RECV, "the client's sink advertisement");
                s.post(WrOpcode.RDMA_WRITE, START, Math.min(text(buf).length() + 1, size), info.get(BE64, 0), info.get(BE32, 8));
                s.await(WcOpcode.RDMA_WRITE, "the RDMA WRITE of the ping");
                s.post(WrOpcode.SEND, SEND, 16, 0, 0);   // go ahead
            }
        }
    }

    /** One connection's buffers and the completions its handler hears, in order. */
    private static final class Session implements ConnectionHandler, AutoCloseable {
        private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        private final Arena arena = Arena.ofShared();
        final MemorySegment mem = arena.allocate(START + 2L * MAX_SIZE, 4096);
        private final SendRequests sq = SendRequests.allocate(1, 1);
        private final RecvRequests rq = RecvRequests.allocate(1, 1);
        private RdmaConnection c;
        private MemoryRegion mr;

        void start(CompletableFuture<RdmaConnection> connected) throws Exception {
            c = connected.get(60, TimeUnit.SECONDS);
            RawQueuePair raw = c.raw();
            mr = raw.protectionDomain().register(mem, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
            postRecv(raw.queuePair());
            debug("connected %s -> %s, qp %d", c.localAddress(), c.peerAddress(), raw.queuePair().qpNum());
        }

        private synchronized void postRecv(QueuePair qp) {
            rq.set(0, 1).sge(0, 0, mr, RECV, 16);
            qp.postRecv(rq, 1);
        }

        void post(WrOpcode op, long offset, int length, long remote, int rkey) {
            sq.set(0, op.value() + 2, op, SendFlags.SIGNALED).sge(0, 0, mr, offset, length);
            if (op != WrOpcode.SEND) sq.rdma(0, remote, rkey);
            c.raw().queuePair().postSend(sq, 1);
        }

        void advertise(MemorySegment buffer) {
            mem.set(BE64, SEND, buffer.address());
            mem.set(BE32, SEND + 8, mr.rkey());
            mem.set(BE32, SEND + 12, size);
            debug("RDMA addr %x rkey %x len %d", buffer.address(), mr.rkey(), size);
            post(WrOpcode.SEND, SEND, 16, 0, 0);
        }

        /** Poller thread: copy what arrived, re-post the receive at once (as rping does). */
        @Override public void onCompletion(RdmaConnection conn, WorkCompletions wc, int i) {
            byte[] received = null;
            if (wc.status(i) == WcStatus.SUCCESS && wc.opcode(i) == WcOpcode.RECV) {
                received = mem.asSlice(RECV, Math.min(wc.byteLength(i), 16)).toArray(JAVA_BYTE);
                if (wc.byteLength(i) == 16) postRecv(conn.raw().queuePair());
                else received = new byte[wc.byteLength(i)];   // bogus: reported by await
            }
            events.add(new Event(wc.opcode(i), wc.status(i), received, null));
        }
        @Override public void onDisconnected(RdmaConnection conn) { events.add(new Event(null, null, null, "disconnected")); }
        @Override public void onError(RdmaConnection conn, RdmaCmException e) {
            events.add(new Event(null, null, null, e.getMessage().lines().findFirst().orElse("failed")));
        }
        @Override public void onClosed(RdmaConnection conn) { events.add(new Event(null, null, null, "closed")); }

        /** The next completion, which must be of {@code wanted}: a RECV's 16 bytes, else empty. */
        MemorySegment await(WcOpcode wanted, String what) throws Exception {
            Event e = awaitOrEnd();
            if (e.opcode() != wanted) {
                throw new Failure((e.opcode() == null ? "the connection ended (" + e.why() + ")" : "a " + e.opcode()
                        + " completion") + " while waiting for " + what);
            }
            return MemorySegment.ofArray(e.received() != null ? e.received() : new byte[0]);
        }

        /** The next completion but the SENDs, or the end of the connection (a flushed work request counts as that). */
        Event awaitOrEnd() throws Exception {
            while (true) {
                Event e = events.poll(STEP.toSeconds(), TimeUnit.SECONDS);
                if (e == null) throw new Failure("nothing from the peer within " + STEP.toSeconds() + " s");
                if (e.status() == WcStatus.WR_FLUSH_ERR) return new Event(null, null, null, "work requests flushed");
                if (e.status() != null && e.status() != WcStatus.SUCCESS) {
                    throw new Failure("work completion failed: " + e.status().describe());
                }
                if (e.opcode() == WcOpcode.SEND) continue;   // rping waits on the peer's answer, not on its own sends
                if (e.received() != null && e.received().length != 16) {
                    throw new Failure("Received bogus data, size " + e.received().length);
                }
                if (e.opcode() != null) debug("%s completion", e.opcode());
                return e;
            }
        }

        @Override public void close() throws Exception {
            if (c != null) {
                c.close().get(30, TimeUnit.SECONDS);   // the QP is gone before the memory it used
            }
            if (mr != null) mr.close();
            sq.close();
            rq.close();
            arena.close();
        }
    }

    private static void debug(String format, Object... args) {
        if (debug) System.out.println(String.format(format, args));
    }
}
