package org.rdmacm4j.it.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.MemoryRegion;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.RecvRequests;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * A misbehaving peer written with the raw {@code verbs} bindings: it connects to an rdmacm4j
 * listener with whatever private data the test gives it (a well-formed message-channel offer, or
 * garbage), then posts whatever the test asks for, ignoring the channel's protocol. It keeps
 * {@link #RECEIVES} receives posted so the rdmacm4j side's grant messages never meet RNR (the
 * scenarios test the victim's reaction to the peer's sends, not to a peer that stops receiving).
 * Test thread only; {@link #close()} releases everything in reverse order.
 */
final class RawVerbsPeer implements AutoCloseable {
    static final int RECEIVES = 64;
    static final int SEND_QUEUE = 256;
    private static final int BUFFER = 64 * 1024;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final List<AutoCloseable> owned = new ArrayList<>();
    private final CmEventChannel channel;
    private final CmId id;
    private final CompletionQueue cq;
    private final QueuePair qp;
    private final MemoryRegion mr;
    private final SendRequests sends;
    private final WorkCompletions wc;
    /** The rdma_cm event that ended the connect: ESTABLISHED, or REJECTED / an error. */
    final CmEvent outcome;

    /** The channel offer rdmacm4j puts ahead of its private data (see ChannelOffer): magic, size, credits. */
    static byte[] offer(int magic, int maxMessageSize, int credits) {
        return ByteBuffer.allocate(7).put((byte) magic).putInt(maxMessageSize).putShort((short) credits).array();
    }

    RawVerbsPeer(InetSocketAddress target, byte[] privateData) {
        try {
            Arena arena = Arena.ofShared();
            own(arena::close);
            channel = own(CmEventChannel.create());
            channel.setNonBlocking(true);
            id = own(channel.createId(PortSpace.TCP));
            id.resolveAddress(new InetSocketAddress(java.net.InetAddress.getByName(SoftRoce.CLIENT_ADDR), 0), target,
                    Duration.ofSeconds(10));
            expect(CmEventType.ADDR_RESOLVED);
            id.resolveRoute(Duration.ofSeconds(10));
            expect(CmEventType.ROUTE_RESOLVED);
            ProtectionDomain pd = own(id.context().allocatePd());
            cq = own(id.context().createCq(SEND_QUEUE + RECEIVES, null, 0));
            qp = own(id.createQp(pd, QpInitAttributes.of(QpType.RC, cq, cq, SEND_QUEUE, RECEIVES, 1, 0)));
            mr = own(pd.register(arena.allocate(BUFFER, 64), Access.ALL_REMOTE));
            sends = own(SendRequests.allocate(SEND_QUEUE, 1));
            wc = own(WorkCompletions.allocate(SEND_QUEUE + RECEIVES));
            try (RecvRequests recvs = RecvRequests.allocate(RECEIVES, 1)) {
                for (int i = 0; i < RECEIVES; i++) {
                    recvs.set(i, 1000 + i).sge(i, 0, mr, 0, 4096);
                }
                qp.postRecv(recvs, RECEIVES);
            }
            id.connect(ConnParam.defaults().withPrivateData(privateData));
            CmEvent e = channel.getEvent(WAIT);
            if (e == null) {
                throw new AssertionError("no answer to the raw connect within " + WAIT);
            }
            outcome = e;
        } catch (Throwable t) {
            closeQuietly(t);
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    /** Posts {@code count} SEND_WITH_IMM (or SEND if {@code imm} is null) of {@code length} bytes at once. */
    void sendMessages(int count, int length, Integer imm) {
        checkArgument(count <= SEND_QUEUE, "at most %s sends at once", SEND_QUEUE);
        for (int i = 0; i < count; i++) {
            sends.set(i, i, imm == null ? WrOpcode.SEND : WrOpcode.SEND_WITH_IMM, SendFlags.SIGNALED)
                    .sge(i, 0, mr, 0, length);
            if (imm != null) {
                sends.immData(i, imm);
            }
        }
        qp.postSend(sends, count);
    }

    /** Posts one RDMA WRITE of {@code length} bytes to {@code remoteAddress}/{@code rkey}. */
    void write(long remoteAddress, int rkey, int length) {
        sends.set(0, 7, WrOpcode.RDMA_WRITE, SendFlags.SIGNALED).sge(0, 0, mr, 0, length).rdma(0, remoteAddress, rkey);
        qp.postSend(sends, 1);
    }

    /** The status of the next send completion (receive completions skipped), waiting up to {@link #WAIT}. */
    WcStatus nextSendStatus() throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            int n = cq.poll(wc, 1);
            if (n == 1 && wc.wrId(0) < 1000) {
                return wc.status(0);
            }
            if (n == 0) {
                Thread.sleep(1);
            }
        }
        throw new AssertionError("no send completion on the raw peer within " + WAIT);
    }

    private void expect(CmEventType type) {
        CmEvent e = channel.getEvent(WAIT);
        if (e == null || e.type() != type) {
            throw new AssertionError("expected " + type + " on the raw peer, got " + e);
        }
    }

    private <T extends AutoCloseable> T own(T resource) {
        owned.add(resource);
        return resource;
    }

    private void closeQuietly(Throwable failure) {
        try {
            close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }

    /** Disconnects (if connected) and releases everything; idempotent. */
    @Override
    public void close() throws Exception {
        Exception first = null;
        if (id != null && outcome != null && outcome.type() == CmEventType.ESTABLISHED) {
            try {
                id.disconnect();
            } catch (RuntimeException e) {
                first = e;   // already disconnected by the victim's teardown: fine, keep going
            }
        }
        for (int i = owned.size() - 1; i >= 0; i--) {
            try {
                owned.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        owned.clear();
        if (first != null && !(first instanceof org.rdmacm4j.verbs.RdmaException)) {
            throw first;
        }
    }
}
