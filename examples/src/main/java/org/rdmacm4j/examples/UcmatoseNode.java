package org.rdmacm4j.examples;

import java.lang.foreign.Arena;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.RawQueuePair;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.QpAttrMask;
import org.rdmacm4j.verbs.ibv.QpAttributes;
import org.rdmacm4j.verbs.ibv.RecvRequests;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcOpcode;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * One connection of {@link Ucmatose} (ucmatose's cmatest_node): one buffer for its sends and
 * receives, as ucmatose's node->mem, and the count of each side's completions. Its handler
 * methods run on the connection's poller thread; the rest on the main thread.
 */
final class UcmatoseNode implements ConnectionHandler {
    private static final long SEND = 1, RECV = 2;   // work request ids (below 1L << 56)
    final CountDownLatch sent, received;
    private final CompletableFuture<Void> failed = new CompletableFuture<>();
    private final Arena arena = Arena.ofShared();
    private final int count, size;
    private final boolean printQp;
    private RdmaConnection connection;
    private MemoryRegion mr;
    private volatile boolean closing;

    /** {@code count} messages of {@code size} bytes each way; {@code printQp}: print what the QP got (-t, -a). */
    UcmatoseNode(int count, int size, boolean printQp) {
        this.count = count;
        this.size = size;
        this.printQp = printQp;
        sent = new CountDownLatch(count);
        received = new CountDownLatch(count);
    }

    /** The queue pair each side creates: room for every message at once, as ucmatose's. */
    static QpCapabilities capabilities(int count) {
        return new QpCapabilities(count, count, 1, 1, 0, 2 * count);
    }

    RdmaConnection connection() {
        return connection;
    }

    /** Registers the buffer and posts the C receives (before the peer's sends, which wait on RNR retry until then). */
    void attach(RdmaConnection c) {
        connection = c;
        RawQueuePair raw = c.raw();
        mr = raw.protectionDomain().register(arena.allocate(size, 64), Access.LOCAL_WRITE);
        if (printQp) {   // what the QP really got
            QpAttributes a = raw.queuePair().query(QpAttrMask.AV | QpAttrMask.TIMEOUT);
            System.out.printf("ucmatose: qp %d: traffic class %d, ack timeout %d%n", raw.queuePair().qpNum(),
                    a.ahAttr().trafficClass(), a.timeout());
        }
        try (RecvRequests wr = RecvRequests.allocate(1, 1)) {
            for (int i = 0; i < count; i++) {
                raw.queuePair().postRecv(wr.set(0, RECV).sge(0, 0, mr, 0, size), 1);
            }
        }
    }

    void postSends() {
        try (SendRequests wr = SendRequests.allocate(1, 1)) {
            for (int i = 0; i < count; i++) {
                connection.raw().queuePair().postSend(
                        wr.set(0, SEND, WrOpcode.SEND, SendFlags.SIGNALED).sge(0, 0, mr, 0, size), 1);
            }
        }
    }

    /** Waits for {@code latch} (one of this node's) within {@code seconds}, failing early if the connection failed or closed. */
    void await(CountDownLatch latch, String what, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!latch.await(50, TimeUnit.MILLISECONDS)) {
            if (failed.isDone() || connection.isClosed() || System.nanoTime() > deadline) {
                throw new IllegalStateException("waiting for " + what + " from " + connection.peerAddress()
                        + ": " + latch.getCount() + " of " + count + " missing"
                        + (connection.isClosed() ? " (connection closed)" : ""));
            }
        }
    }

    @Override public void onCompletion(RdmaConnection c, WorkCompletions wc, int i) {
        if (wc.status(i) != WcStatus.SUCCESS) {
            if (!closing) {
                failed.complete(null);
                System.out.println("ucmatose: work completion " + wc.status(i) + " on " + c.peerAddress());
            }
        } else if (wc.opcode(i) == WcOpcode.SEND) {
            sent.countDown();
        } else if (wc.byteLength(i) != size) {
            System.out.println("ucmatose: received " + wc.byteLength(i) + " bytes, expected " + size);
            failed.complete(null);
        } else {
            received.countDown();
        }
    }

    @Override public void onDisconnected(RdmaConnection c) { deregister(); }
    @Override public void onError(RdmaConnection c, RdmaCmException e) { deregister(); }

    /** Our region goes before the connection closes: its teardown may free the protection domain. */
    synchronized void deregister() {
        closing = true;   // flushed work requests are no failure from here on
        if (mr != null) {
            mr.close();
            mr = null;
        }
    }

    /** At the end, whatever happened: the region, then the connection (aborted if still open), then the buffer. */
    void free(int seconds) throws ExecutionException, InterruptedException, TimeoutException {
        deregister();
        if (connection != null) {
            connection.abort().get(seconds, TimeUnit.SECONDS);
        }
        arena.close();   // the QP is gone: nothing can be received into it any more
    }
}
