package org.rdmacm4j.cm.core.internal.connection;

import static com.google.common.base.Preconditions.checkArgument;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.List;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.Failures;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.FailedCompletion;
import org.rdmacm4j.cm.core.internal.poll.SlotPool;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.RecvRequests;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcFlags;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * The message channel of one connection: leased send and receive buffers, credit-based flow
 * control (see {@link MessagingOptions} for the protocol), and completion handling.
 *
 * <p>Every message is a SEND_WITH_IMM whose immediate data carries the credits its sender grants
 * (the receives it re-posted since it last said so; low 16 bits) and a grant-only flag (bit 16) for
 * messages without payload, which are not delivered to the application.
 *
 * <p>Threads: {@link #send} from any thread; {@link #onCompletion} on the connection's completion
 * poller; {@link #bind}, {@link #peerOffer}, {@link #closing} and {@link #release} from the
 * dispatcher. The counters are guarded by this object's lock; receives are re-posted only by the
 * poller (and before the connection exists).
 *
 * <p>Longer than 400 lines because the send side, the receive side and the credit accounting
 * share one lock and one set of counters: split apart, each half would need the other's
 * invariants spelled out across a class boundary on the hottest path of a connection.
 */
public final class DataPath implements CompletionSink {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    /** wr_id kinds, in the top byte; the low bits are a slot index. */
    private static final long RECV = 1L << 56;
    private static final long SEND = 2L << 56;
    private static final long GRANT = 3L << 56;
    private static final long KIND_MASK = 0xFFL << 56;
    private static final int GRANT_MASK = 0xFFFF;
    private static final int GRANT_ONLY = 1 << 16;
    /** Send-queue entries beyond the data window, for grant-only messages. */
    public static final int GRANT_MESSAGES = 4;

    private record Pending(byte[] bytes, CmFuture<Void> future) { }

    private final QueuePair qp;
    private final SlotPool pool;
    private final int localMaxMessage;
    private final int receiveCredits;
    private final int maxQueued;
    private final SlotPool.Slot[] recvSlots;
    private final SlotPool.Slot[] sendSlots;
    private final RecvRequests recv = RecvRequests.allocate(1, 1);   // poller thread (and setup)
    private final SendRequests send = SendRequests.allocate(1, 1);   // under the lock
    private final CmFuture<?>[] sendFutures;
    /**
     * The last view handed out per receive buffer: reused when the next message in that buffer has
     * the same length, so steady traffic allocates nothing (a view is immutable and valid only
     * during the callback, so sharing it is safe). Poller thread only.
     */
    private final MemorySegment[] views;
    private final int[] freeSendSlots;

    private volatile ConnectionEnd owner;
    private volatile ChannelOffer peer;
    private volatile boolean closing;

    // Guarded by this.
    private int freeSendCount;
    /** Messages we may still send (the peer's receives we know are posted). */
    private long credits;
    /** Receives we re-posted and have not yet told the peer about. */
    private int ungranted;
    /** Credits we have given the peer in total, and messages we have received from it. */
    private long grantedToPeer;
    private long receivedFromPeer;
    private int sqInFlight;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private boolean released;
    private boolean errorReported;
    private boolean flushReported;

    public DataPath(QueuePair qp, SlotPool pool, MessagingOptions options) {
        this.qp = qp;
        this.pool = pool;
        this.localMaxMessage = options.maxMessageSize();
        this.receiveCredits = options.receiveCredits();
        this.maxQueued = options.maxQueuedSends();
        this.recvSlots = pool.lease(receiveCredits, localMaxMessage);
        this.sendSlots = pool.lease(receiveCredits, localMaxMessage);
        this.sendFutures = new CmFuture<?>[sendSlots.length];
        this.views = new MemorySegment[recvSlots.length];
        this.freeSendSlots = new int[sendSlots.length];
        for (int i = 0; i < sendSlots.length; i++) {
            freeSendSlots[i] = i;
        }
        this.freeSendCount = sendSlots.length;
        this.grantedToPeer = receiveCredits;
        for (int i = 0; i < recvSlots.length; i++) {
            postReceive(i);
        }
    }

    /** QP sizes this channel needs. */
    public static int sendQueueNeeded(MessagingOptions o) {
        return o.receiveCredits() + GRANT_MESSAGES;
    }

    public static int recvQueueNeeded(MessagingOptions o) {
        return o.receiveCredits();
    }

    /** What we offer the peer in the CM private data. */
    public ChannelOffer offer() {
        return new ChannelOffer(localMaxMessage, receiveCredits);
    }

    void bind(ConnectionEnd connection) {
        this.owner = connection;
    }

    /** The peer's offer arrived (the request on the passive side, the accept on the active side). */
    public void peerOffer(ChannelOffer offer) {
        synchronized (this) {
            credits += offer.credits();   // grants may have arrived before the offer was read
        }
        this.peer = offer;
    }

    public int maxMessageSize() {
        ChannelOffer p = peer;
        return p == null ? 0 : Math.min(p.maxMessageSize(), localMaxMessage);
    }

    // ------------------------------------------------------------------ sending (any thread)

    /** Posts or queues {@code message}; {@code future} may be null (offer). Returns false if the queue is full. */
    public boolean send(MemorySegment message, CmFuture<Void> future) {
        int max = maxMessageSize();
        if (max == 0) {
            throw new IllegalStateException(owner + " has no message channel (a raw connection, or the peer offered none)");
        }
        checkArgument(message.byteSize() <= max,
                "message of %s bytes exceeds the connection's maximum of %s bytes", message.byteSize(), max);
        synchronized (this) {
            if (closing || released) {
                if (future != null) {
                    future.completeExceptionally(new ConnectionClosedException(owner + " is closing", List.of()));
                }
                return true;
            }
            if (queue.isEmpty() && canPostData()) {
                postData(message, future);
                return true;
            }
            if (queue.size() >= maxQueued) {
                if (future != null) {
                    future.completeExceptionally(new DataPathException(owner + ": send queue full (" + maxQueued
                            + " messages waiting for credits); slow down or raise maxQueuedSends", null, List.of()));
                }
                return false;
            }
            queue.add(new Pending(message.toArray(ValueLayout.JAVA_BYTE), future));
            return true;
        }
    }

    /** The last credit is spent only on a message that grants credits back (no deadlock). */
    private boolean canPostData() {
        return peer != null && freeSendCount > 0 && sqInFlight < sendSlots.length + GRANT_MESSAGES
                && (credits >= 2 || (credits == 1 && ungranted > 0));
    }

    private int takeGrant() {
        int g = Math.min(ungranted, GRANT_MASK);
        ungranted -= g;
        grantedToPeer += g;
        return g;
    }

    private void postData(MemorySegment message, CmFuture<Void> future) {
        int slot = freeSendSlots[--freeSendCount];
        SlotPool.Slot s = sendSlots[slot];
        int length = (int) message.byteSize();
        MemorySegment.copy(message, 0, s.segment(), 0, length);
        int grant = takeGrant();
        send.set(0, SEND | slot, WrOpcode.SEND_WITH_IMM, SendFlags.SIGNALED).immData(0, grant);
        if (length > 0) {
            send.sge(0, 0, s.address(), length, s.lkey());
        }
        try {
            qp.postSend(send, 1);
        } catch (RdmaException e) {
            ungranted += grant;
            grantedToPeer -= grant;
            freeSendSlots[freeSendCount++] = slot;
            if (future != null) {
                future.completeExceptionally(new DataPathException(owner + ": " + e.getMessage(), null, List.of()));
            }
            return;
        }
        credits--;
        sendFutures[slot] = future;
        sqInFlight++;
    }

    /**
     * A grant-only message, when half our window is due or the peer may be down to its last credit
     * (it can then send only a message that grants, and may have none to send).
     */
    private void maybeGrant() {
        if (peer == null || closing || released || ungranted == 0 || credits == 0
                || sqInFlight >= sendSlots.length + GRANT_MESSAGES) {
            return;
        }
        long peerCredits = grantedToPeer - receivedFromPeer;
        if (ungranted < Math.max(1, receiveCredits / 2) && peerCredits > 1) {
            return;
        }
        int grant = takeGrant();
        send.set(0, GRANT, WrOpcode.SEND_WITH_IMM, SendFlags.SIGNALED).immData(0, GRANT_ONLY | grant);
        try {
            qp.postSend(send, 1);
        } catch (RdmaException e) {
            ungranted += grant;
            grantedToPeer -= grant;
            LOG.log(Level.DEBUG, () -> owner + ": grant not posted: " + e.getMessage());
            return;
        }
        credits--;
        sqInFlight++;
    }

    private void flushQueue() {
        Pending p;
        while (!closing && (p = queue.peek()) != null && canPostData()) {
            queue.poll();
            postData(MemorySegment.ofArray(p.bytes()), p.future());
        }
        maybeGrant();
    }

    // ------------------------------------------------------------------ completions (poller thread)

    @Override
    public void onCompletion(WorkCompletions wc, int i) {
        long wrId = wc.wrId(i);
        long kind = wrId & KIND_MASK;
        int slot = (int) (wrId & ~KIND_MASK);
        if (wc.statusValue(i) != WcStatus.SUCCESS.value()) {
            failed(kind, slot, wc.status(i));
            return;
        }
        if (kind == RECV) {
            received(wc, i, slot);
        } else if (kind == SEND) {
            CmFuture<?> f;
            synchronized (this) {
                sqInFlight--;
                f = sendFutures[slot];
                sendFutures[slot] = null;
                freeSendSlots[freeSendCount++] = slot;
                flushQueue();
            }
            if (f != null) {
                complete(f);
            }
        } else if (kind == GRANT) {
            synchronized (this) {
                sqInFlight--;
                flushQueue();
            }
        }
    }

    private void received(WorkCompletions wc, int i, int slot) {
        boolean withImm = (wc.flags(i) & WcFlags.WITH_IMM) != 0;
        int imm = withImm ? wc.immData(i) : 0;
        String violation;
        synchronized (this) {
            receivedFromPeer++;
            ChannelOffer p = peer;
            violation = PeerConduct.violation(withImm, imm, receivedFromPeer, grantedToPeer, credits,
                    p == null ? 0 : p.credits());
            if (violation == null) {   // byte_len is checked before it sizes the view (PeerConduct.lengthViolation)
                violation = PeerConduct.lengthViolation(wc.byteLength(i), localMaxMessage);
            }
        }
        if (violation != null) {
            protocolViolated(violation);   // not delivered, the receive not re-posted: the connection goes
            return;
        }
        if ((imm & GRANT_ONLY) == 0) {
            ConnectionEnd c = owner;
            if (c != null && c.handler() != null && !closing) {
                try {
                    c.handler().onMessage(c, view(slot, wc.byteLength(i)));
                } catch (Throwable t) {
                    c.callbackFailed(t);
                }
            }
        }
        postReceive(slot);
        synchronized (this) {
            credits += imm & GRANT_MASK;
            ungranted++;
            flushQueue();
        }
    }

    private MemorySegment view(int slot, int length) {
        MemorySegment v = views[slot];
        if (v == null || v.byteSize() != length) {
            v = recvSlots[slot].segment().asSlice(0, length);
            views[slot] = v;
        }
        return v;
    }

    private void postReceive(int slot) {
        SlotPool.Slot s = recvSlots[slot];
        recv.set(0, RECV | slot).sge(0, 0, s.address(), (int) s.segment().byteSize(), s.lkey());
        try {
            qp.postRecv(recv, 1);
        } catch (RdmaException e) {
            if (!closing) {
                LOG.log(Level.WARNING, owner + ": re-posting a receive failed: " + e.getMessage());
            }
        }
    }

    private void failed(long kind, int slot, WcStatus status) {
        String name = "IBV_WC_" + status.name();
        boolean flush = status == WcStatus.WR_FLUSH_ERR;
        CmFuture<?> f = null;
        synchronized (this) {
            if (kind == SEND || kind == GRANT) {
                sqInFlight--;
            }
            if (kind == SEND) {
                f = sendFutures[slot];
                sendFutures[slot] = null;
                freeSendSlots[freeSendCount++] = slot;
            }
        }
        ConnectionEnd c = owner;
        if (f != null) {
            f.completeExceptionally(flush || closing
                    ? Failures.cutShort(c + ": the connection closed before the send completed", c == null ? null : c.failure())
                    : Failures.completionFailed(c + ": send failed with " + name, status, List.of()));
        }
        switch (FailedCompletion.classify(status, closing)) {
            case DURING_TEARDOWN -> { }
            case UNEXPLAINED_FLUSH -> flushedOnce(c, status);
            case ERROR -> reportOnce(c, status);
        }
    }

    /**
     * The QP went to the error state and no teardown of ours did it (see {@link FailedCompletion}):
     * the dispatcher judges it, once per connection (every posted receive flushes).
     */
    private void flushedOnce(ConnectionEnd c, WcStatus status) {
        synchronized (this) {
            if (flushReported || errorReported) {
                return;
            }
            flushReported = true;
        }
        if (c != null) {
            c.queuePairFlushed(status);
        }
    }

    /** The peer broke the channel's protocol: the connection is torn down with a clear error, once. */
    private void protocolViolated(String why) {
        ConnectionEnd c = owner;
        synchronized (this) {
            if (errorReported || closing) {
                return;
            }
            errorReported = true;
        }
        if (c != null) {
            c.dataPathFailed(new DataPathException(c + ": protocol violation: " + why
                    + "; the connection is being torn down", null, c.history()));
        }
    }

    private void reportOnce(ConnectionEnd c, WcStatus status) {
        synchronized (this) {
            if (errorReported) {
                return;
            }
            errorReported = true;
        }
        if (c != null) {
            c.dataPathFailed(Failures.completionFailed(c + ": a work completion failed with " + status.cName()
                    + "; the connection is being torn down", status, c.history()));
        }
    }

    private void complete(CmFuture<?> f) {
        ConnectionEnd c = owner;
        if (c != null) {
            c.callbacks().execute(new CmFuture.CompleteTask<>(f, null, null));
        } else {
            f.complete(null);
        }
    }

    /** The channel's counters, for diagnostics. Any thread. */
    public synchronized String describe() {
        return "channel[credits " + credits + ", ungranted " + ungranted + ", granted to peer " + grantedToPeer
                + ", received " + receivedFromPeer + ", queued " + queue.size() + ", send queue in flight "
                + sqInFlight + ", free send buffers " + freeSendCount + "]";
    }

    // ------------------------------------------------------------------ teardown (dispatcher)

    /**
     * The QP is about to go to ERR on purpose (rdma_disconnect or the teardown's drain): no more
     * sends, and its flush completions are not errors.
     */
    public void closing() {
        closing = true;
    }

    /** The QP is destroyed: fail what waits and return the buffers. */
    public void release() {
        List<Pending> dropped;
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            closing = true;
            dropped = List.copyOf(queue);
            queue.clear();
            for (int i = 0; i < sendFutures.length; i++) {
                if (sendFutures[i] != null) {
                    sendFutures[i].completeExceptionally(Failures.cutShort(owner + " closed", owner == null ? null : owner.failure()));
                    sendFutures[i] = null;
                }
            }
        }
        for (Pending p : dropped) {
            if (p.future() != null) {
                p.future().completeExceptionally(Failures.cutShort(owner + " closed before the message was sent",
                        owner == null ? null : owner.failure()));
            }
        }
        pool.release(recvSlots);
        pool.release(sendSlots);
        recv.close();
        send.close();
    }
}
