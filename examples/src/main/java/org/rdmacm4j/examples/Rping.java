package org.rdmacm4j.examples;

import static org.rdmacm4j.examples.RpingWire.pattern;
import static org.rdmacm4j.examples.RpingWire.text;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ConnectionRequest;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.RetryPolicy;
import org.rdmacm4j.examples.RpingWire.RdmaInfo;
import org.rdmacm4j.verbs.ibv.WcOpcode;

/**
 * rdma-core's rping on rdmacm4j's raw access, wire compatible with it: the client advertises its
 * ping buffer (16 bytes: be64 address, be32 rkey, be32 size) in a SEND, the server RDMA READs the
 * ping, says "go ahead", the client advertises its sink, the server RDMA WRITEs the ping back and
 * says "go ahead" again. Pings are {@code rdma-ping-N: } then letters cycling from 'A'. The wire
 * format is in {@link RpingWire}, one connection's buffers and work requests in {@link RpingSession}.
 */
public final class Rping {
    private static final String USAGE = """
            usage: rping -s [-vVdP] [-S size] [-C count] [-a addr] [-p port]
                   rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]
              -s server (one client; -P: any number)   -c client   -a address   -I client source address
              -p port (7174)   -C pings (client; default: until stopped)   -S ping size (23..65536, default 64)
              -v print the ping data   -V validate it   -d debug output""";
    private static final int MIN_SIZE = 23;
    private static final CmTuning RPING_TUNING = new CmTuning(1, 1, 7, 7);   // responder resources, initiator depth 1
    private final boolean server, verbose, validate, debug, persistent;
    private final String address, source;
    private final int port, count, size;

    /** The command line's settings; a bad one exits 2 with the usage. */
    private Rping(Cli cli) {
        server = cli.has("-s");
        verbose = cli.has("-v");
        validate = cli.has("-V");
        debug = cli.has("-d");
        persistent = cli.has("-P");
        address = cli.get("-a", null);
        source = cli.get("-I", null);
        port = cli.integer("-p", 7174, 1, 65535);
        count = cli.integer("-C", 0, 0, Integer.MAX_VALUE);
        size = cli.integer("-S", 64, MIN_SIZE, RpingSession.MAX_SIZE);
        cli.require(server != cli.has("-c"), "give one of -s and -c");
        cli.require(server || address != null, "the client needs -a address");
    }

    public static void main(String[] args) throws Exception {
        Rping rping = new Rping(Cli.parse("rping", USAGE, args, "-a -I -p -C -S", "-s -c -v -V -d -P"));
        try (RdmaCm cm = RdmaCm.open()) {
            if (rping.server) rping.serve(cm); else rping.ping(cm);
        } catch (Failure e) {
            System.err.println("rping: " + e.getMessage());
            System.exit(1);
        } catch (RdmaCmException | java.io.IOException | ExecutionException | TimeoutException | InterruptedException e) {
            Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String m = t instanceof ConnectionRejectedException r ? "rejected (" + r.reason() + ")" : String.valueOf(t.getMessage());
            System.err.println("rping: " + t.getClass().getSimpleName() + ": " + (rping.debug ? m : m.lines().findFirst().orElse("")));
            System.exit(1);
        }
    }

    private void ping(RdmaCm cm) throws Exception {
        var b = ConnectOptions.builder().raw().timeout(Duration.ofSeconds(30)).retries(RetryPolicy.never())
                .tuning(RPING_TUNING);
        if (source != null) b.source(new InetSocketAddress(InetAddress.getByName(source), 0));
        try (RpingSession s = new RpingSession(size, debug)) {
            s.start(cm.connect(new InetSocketAddress(InetAddress.getByName(address), port), b.build(), s));
            MemorySegment start = s.ping(), sink = s.sink();
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

    private void serve(RdmaCm cm) throws Exception {
        InetSocketAddress at = address == null ? new InetSocketAddress(port) : new InetSocketAddress(InetAddress.getByName(address), port);
        RdmaListener listener = cm.listen(at, ListenOptions.defaults().withTuning(RPING_TUNING));
        debug("rdma_listen on %s", listener.localAddress());
        do {
            ConnectionRequest request = listener.next().get();
            RpingSession s = new RpingSession(size, debug);
            debug("connect request from %s", request.peerAddress());
            CompletableFuture<RdmaConnection> accepted = request.accept(s, AcceptOptions.defaults().raw());
            if (!persistent) { serveOne(s, accepted); break; }
            Thread.ofVirtual().start(() -> {
                try { serveOne(s, accepted); } catch (Exception e) { System.err.println("rping: " + e.getMessage()); }
            });
        } while (true);
    }

    private void serveOne(RpingSession s, CompletableFuture<RdmaConnection> accepted) throws Exception {
        try (s) {
            s.start(accepted);
            MemorySegment buf = s.ping();
            for (int ping = 0; ; ping++) {
                RpingSession.Event next = s.awaitOrEnd();
                if (next.opcode() == null) break;   // the client disconnected between pings: done
                if (next.opcode() != WcOpcode.RECV) throw new Failure("a " + next.opcode() + " completion between pings");
                RdmaInfo theirs = next.info();   // the client's ping buffer
                debug("Received rkey %x addr %x len %d from peer", theirs.rkey(), theirs.address(), theirs.size());
                int len = theirs.size();
                if (len <= 0 || len > size) throw new Failure("the client's pings are " + len + " bytes; this server's -S is " + size);
                s.readPing(len, theirs);
                s.await(WcOpcode.RDMA_READ, "the RDMA READ of the ping");
                if (validate && buf.asSlice(0, len).mismatch(MemorySegment.ofArray(pattern(ping, len))) >= 0) {
                    throw new Failure("data mismatch! ping " + ping + ": " + text(buf));
                }
                if (verbose) System.out.println("server ping data: " + text(buf));
                s.goAhead();
                RdmaInfo sink = s.await(WcOpcode.RECV, "the client's sink advertisement").info();
                s.writePing(Math.min(text(buf).length() + 1, size), sink);
                s.await(WcOpcode.RDMA_WRITE, "the RDMA WRITE of the ping");
                s.goAhead();
            }
        }
    }

    private void debug(String format, Object... args) {
        if (debug) System.out.println(String.format(format, args));
    }
}
