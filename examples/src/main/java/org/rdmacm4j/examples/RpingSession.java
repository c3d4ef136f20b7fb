package org.rdmacm4j.examples;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RawQueuePair;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.examples.RpingWire.RdmaInfo;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.RecvRequests;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcOpcode;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * One side of one {@link Rping} connection: its registered buffer (a send and a receive slot for
 * {@link RdmaInfo}, then the ping and the sink), the work requests rping posts, and the completions
 * its handler hears, in order. The handler methods run on the connection's poller thread; the
 * rest on the one thread that runs the pings.
 */
final class RpingSession implements ConnectionHandler, AutoCloseable {
    static final int MAX_SIZE = 65536;
    private static final int SEND = 0, RECV = 16, START = 64;   // offsets in the one registered buffer
    private static final Duration STEP = Duration.ofSeconds(60);

    /** A completion (opcode, status, a RECV's bytes) or the end of the connection (opcode null). */
    record Event(WcOpcode opcode, WcStatus status, byte[] received, String why) {
        RdmaInfo info() {
            return RdmaInfo.read(MemorySegment.ofArray(received));
        }
    }

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment mem = arena.allocate(START + 2L * MAX_SIZE, 4096);
    private final SendRequests sq = SendRequests.allocate(1, 1);
    private final RecvRequests rq = RecvRequests.allocate(1, 1);
    private final int size;
    private final boolean debug;
    private RdmaConnection c;
    private MemoryRegion mr;

    /** {@code size}: the pings' size (-S); {@code debug}: print each step (-d). */
    RpingSession(int size, boolean debug) {
        this.size = size;
        this.debug = debug;
    }

    void start(CompletableFuture<RdmaConnection> connected) throws Exception {
        c = connected.get(60, TimeUnit.SECONDS);
        RawQueuePair raw = c.raw();
        mr = raw.protectionDomain().register(mem, Access.LOCAL_WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE);
        postRecv(raw.queuePair());
        debug("connected %s -> %s, qp %d", c.localAddress(), c.peerAddress(), raw.queuePair().qpNum());
    }

    /** The buffer the ping is written to (client) or read into (server). */
    MemorySegment ping() {
        return mem.asSlice(START, size);
    }

    /** The client's buffer the server writes the ping back to. */
    MemorySegment sink() {
        return mem.asSlice(START + size, size);
    }

    /** Sends the peer where {@code buffer} (ping or sink) is. */
    void advertise(MemorySegment buffer) {
        new RdmaInfo(buffer.address(), mr.rkey(), size).write(mem.asSlice(SEND, RdmaInfo.BYTES));
        debug("RDMA addr %x rkey %x len %d", buffer.address(), mr.rkey(), size);
        post(WrOpcode.SEND, SEND, RdmaInfo.BYTES, 0, 0);
    }

    /** The server's "go ahead": a 16-byte SEND. */
    void goAhead() {
        post(WrOpcode.SEND, SEND, RdmaInfo.BYTES, 0, 0);
    }

    /** The server RDMA READs {@code length} bytes of the client's ping into its own. */
    void readPing(int length, RdmaInfo from) {
        post(WrOpcode.RDMA_READ, START, length, from.address(), from.rkey());
    }

    /** The server RDMA WRITEs {@code length} bytes of its ping to the client's sink. */
    void writePing(int length, RdmaInfo to) {
        post(WrOpcode.RDMA_WRITE, START, length, to.address(), to.rkey());
    }

    private void post(WrOpcode op, long offset, int length, long remote, int rkey) {
        sq.set(0, op.value() + 2, op, SendFlags.SIGNALED).sge(0, 0, mr, offset, length);
        if (op != WrOpcode.SEND) sq.rdma(0, remote, rkey);
        c.raw().queuePair().postSend(sq, 1);
    }

    private synchronized void postRecv(QueuePair qp) {
        rq.set(0, 1).sge(0, 0, mr, RECV, RdmaInfo.BYTES);
        qp.postRecv(rq, 1);
    }

    /** Poller thread: copy what arrived, re-post the receive at once (as rping does). */
    @Override public void onCompletion(RdmaConnection conn, WorkCompletions wc, int i) {
        byte[] received = null;
        if (wc.status(i) == WcStatus.SUCCESS && wc.opcode(i) == WcOpcode.RECV) {
            received = mem.asSlice(RECV, Math.min(wc.byteLength(i), RdmaInfo.BYTES)).toArray(JAVA_BYTE);
            if (wc.byteLength(i) == RdmaInfo.BYTES) postRecv(conn.raw().queuePair());
            else received = new byte[wc.byteLength(i)];   // bogus: reported by awaitOrEnd
        }
        events.add(new Event(wc.opcode(i), wc.status(i), received, null));
    }
    @Override public void onDisconnected(RdmaConnection conn) { events.add(new Event(null, null, null, "disconnected")); }
    @Override public void onError(RdmaConnection conn, RdmaCmException e) {
        events.add(new Event(null, null, null, e.getMessage().lines().findFirst().orElse("failed")));
    }
    @Override public void onClosed(RdmaConnection conn) { events.add(new Event(null, null, null, "closed")); }

    /** The next completion, which must be of {@code wanted}. */
    Event await(WcOpcode wanted, String what) throws Exception {
        Event e = awaitOrEnd();
        if (e.opcode() != wanted) {
            throw new Failure((e.opcode() == null ? "the connection ended (" + e.why() + ")" : "a " + e.opcode()
                    + " completion") + " while waiting for " + what);
        }
        return e;
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
            if (e.received() != null && e.received().length != RdmaInfo.BYTES) {
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

    private void debug(String format, Object... args) {
        if (debug) System.out.println(String.format(format, args));
    }
}
