package org.rdmacm4j.cm.core.internal.datagram;

import static com.google.common.base.Preconditions.checkArgument;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.DataPathException;
import org.rdmacm4j.cm.core.DatagramPeer;
import org.rdmacm4j.cm.core.DatagramSender;
import org.rdmacm4j.cm.core.DatagramTarget;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.SlotPool;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.ibv.AddressHandle;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.ibv.RecvRequests;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.SendRequests;
import org.rdmacm4j.verbs.ibv.WcFlags;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WorkCompletions;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * The datagram channel of one UD endpoint: receive buffers (MTU + the 40-byte GRH) kept posted,
 * send buffers, and completion handling. Every datagram is a SEND_WITH_IMM carrying our QPN, as
 * udaddy and mckey do. The address handles of the endpoint's peers and memberships
 * ({@link Targets}) are destroyed with the QP.
 *
 * <p>Threads: {@link #send} from any thread (under this object's lock); {@link #onCompletion} on
 * the endpoint's completion poller; {@link #closing} and {@link #release} from the dispatcher.
 *
 * <p>Longer than 400 lines because sending and receiving share the QP, the slot leases and the
 * teardown (release must fail every queued send and return both sides' buffers at once); the
 * sender view handed to the application is a small inner class that reads the receive buffers.
 */
public final class DatagramPath implements CompletionSink {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    public static final int GRH = 40;
    /** RDMA_UDP_QKEY: the Q_Key the kernel gives every RDMA_PS_UDP QP and SIDR reply (cma_set_qkey). */
    public static final int UDP_QKEY = 0x01234567;
    private static final long RECV = 1L << 56;
    private static final long SEND = 2L << 56;
    private static final long KIND_MASK = 0xFFL << 56;

    public final QueuePair qp;
    public final ProtectionDomain pd;
    public final int portNumber;
    public final int mtu;
    private final SlotPool pool;
    private final SlotPool.Slot[] recvSlots;
    private final SlotPool.Slot[] sendSlots;
    private final RecvRequests recv;   // poller thread (and setup)
    private final SendRequests send;   // under the lock
    private final int qpNum;
    private final CmFuture<?>[] sendFutures;
    private final int maxQueued;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();                 // under the lock
    private final int[] freeSendSlots;
    private final SenderView sender = new SenderView();               // poller thread
    /** The endpoint's targets (peers, memberships), its loopback filter and the endpoint itself. */
    public final Targets targets = new Targets();
    private volatile boolean closing;
    // Guarded by this.
    private int freeSendCount;
    private boolean released;

    public DatagramPath(QueuePair qp, ProtectionDomain pd, SlotPool pool, int portNumber, int mtu, int receives, int sends,
                 int maxQueuedSends) {
        this.maxQueued = maxQueuedSends;
        this.qp = qp;
        this.qpNum = qp.qpNum();
        this.pd = pd;
        this.pool = pool;
        this.portNumber = portNumber;
        this.mtu = mtu;
        this.recv = RecvRequests.allocate(1, 1);
        this.send = SendRequests.allocate(1, 1);
        this.recvSlots = pool.lease(receives, mtu + GRH);
        this.sendSlots = pool.lease(sends, mtu);
        this.sendFutures = new CmFuture<?>[sends];
        this.freeSendSlots = new int[sends];
        for (int i = 0; i < sends; i++) {
            freeSendSlots[i] = i;
        }
        this.freeSendCount = sends;
        for (int i = 0; i < recvSlots.length; i++) {
            postReceive(i);
        }
    }

    /**
     * A path with no QP, no buffers and no address handles, for the dispatcher's host tests
     * (FakeCmPort): it tracks targets and groups like a real one; every send finds the queue full
     * (no buffer, no queue) and fails typed, and nothing is ever received.
     */
    public static DatagramPath detached(int qpNum, int mtu) {
        return new DatagramPath(qpNum, mtu);
    }

    private DatagramPath(int qpNum, int mtu) {
        this.qp = null;
        this.qpNum = qpNum;
        this.pd = null;
        this.pool = null;
        this.portNumber = 1;
        this.mtu = mtu;
        this.recv = null;
        this.send = null;
        this.recvSlots = new SlotPool.Slot[0];
        this.sendSlots = new SlotPool.Slot[0];
        this.sendFutures = new CmFuture<?>[0];
        this.freeSendSlots = new int[0];
        this.maxQueued = 0;
    }

    public void bind(DatagramEnd endpoint) {
        targets.bind(endpoint);
    }

    public DatagramEnd endpoint() {
        return targets.endpoint();
    }

    public int qpNumber() {
        return qpNum;
    }

    /** A datagram waiting for a free send buffer: its own copy, its target, its future (null: offer). */
    private record Pending(TargetHandle to, byte[] data, CmFuture<Void> future) { }

    // ------------------------------------------------------------------ sending (any thread)

    /**
     * Posts one datagram, or queues a copy while every send buffer is in flight (bounded by
     * {@code maxQueuedSends}, as the RC message channel's queue). {@code future} null is an offer:
     * returns false instead of failing when the queue is full. Runtime failures fail the future;
     * bad input throws.
     */
    public boolean send(TargetHandle to, MemorySegment data, CmFuture<Void> future) {
        checkArgument(data.byteSize() <= mtu,
                "datagram of %s bytes exceeds the endpoint's maximum of %s bytes (the port's active MTU)",
                data.byteSize(), mtu);
        synchronized (this) {
            if (closing || released) {
                if (future == null) {
                    return false;
                }
                future.completeExceptionally(new ConnectionClosedException(targets.endpoint() + " is closing", List.of()));
                return true;
            }
            checkArgument(!to.destroyed(), "the target %s is closed", to);
            if (queue.isEmpty() && freeSendCount > 0) {
                post(to, data, future);
                return true;
            }
            if (queue.size() >= maxQueued) {
                if (future == null) {
                    return false;
                }
                future.completeExceptionally(new DataPathException(targets.endpoint() + ": send queue full (" + maxQueued
                        + " datagrams waiting for one of " + sendSlots.length + " send buffers); slow down or raise "
                        + "sendBuffers or maxQueuedSends", null, List.of()));
                return true;
            }
            queue.add(new Pending(to, data.toArray(ValueLayout.JAVA_BYTE), future));
            return true;
        }
    }

    /** Copies into a free send buffer and posts (under the lock, a buffer free). */
    private void post(TargetHandle to, MemorySegment data, CmFuture<Void> future) {
        int slot = freeSendSlots[--freeSendCount];
        SlotPool.Slot s = sendSlots[slot];
        int length = (int) data.byteSize();
        MemorySegment.copy(data, 0, s.segment(), 0, length);
        send.set(0, SEND | slot, WrOpcode.SEND_WITH_IMM, SendFlags.SIGNALED).immData(0, qpNum)
                .ud(0, to.ah, to.queuePairNumber(), to.qkey());
        if (length > 0) {
            send.sge(0, 0, s.address(), length, s.lkey());
        }
        try {
            qp.postSend(send, 1);
        } catch (RdmaException e) {
            freeSendSlots[freeSendCount++] = slot;
            if (future != null) {
                future.completeExceptionally(new DataPathException(targets.endpoint() + ": " + e.getMessage(), null, List.of()));
            } else {
                LOG.log(Level.WARNING, targets.endpoint() + ": an offered datagram was not posted: " + e.getMessage());
            }
            return;
        }
        sendFutures[slot] = future;
    }

    /** A send buffer came back: post what waits, in order (under the lock). Targets closed meanwhile fail their datagram. */
    private void postQueued() {
        Pending p;
        while (!closing && freeSendCount > 0 && (p = queue.poll()) != null) {
            if (p.to.destroyed()) {
                if (p.future != null) {
                    p.future.completeExceptionally(new DataPathException(targets.endpoint() + ": the target " + p.to
                            + " was closed before the queued datagram could be sent", null, List.of()));
                }
                continue;
            }
            post(p.to, MemorySegment.ofArray(p.data), p.future);
        }
    }

    // ------------------------------------------------------------------ completions (poller thread)

    @Override
    public void onCompletion(WorkCompletions wc, int i) {
        long wrId = wc.wrId(i);
        long kind = wrId & KIND_MASK;
        int slot = (int) (wrId & ~KIND_MASK);
        boolean ok = wc.statusValue(i) == WcStatus.SUCCESS.value();
        if (kind == SEND) {
            CmFuture<?> f;
            synchronized (this) {
                f = sendFutures[slot];
                sendFutures[slot] = null;
                freeSendSlots[freeSendCount++] = slot;
                postQueued();
            }
            if (f != null) {
                if (ok) {
                    complete(f);
                } else {
                    String name = "IBV_WC_" + wc.status(i).name();
                    f.completeExceptionally(closing || wc.status(i) == WcStatus.WR_FLUSH_ERR
                            ? new ConnectionClosedException(targets.endpoint() + " closed before the datagram was sent", List.of())
                            : new DataPathException(targets.endpoint() + ": datagram send failed with " + name, name, List.of()));
                }
            }
            return;
        }
        if (kind != RECV) {
            return;
        }
        if (!ok) {
            if (!closing && wc.status(i) != WcStatus.WR_FLUSH_ERR) {
                LOG.log(Level.WARNING, targets.endpoint() + ": a receive failed with " + wc.status(i) + "; re-posting");
                postReceive(slot);
            }
            return;
        }
        MemorySegment buf = recvSlots[slot].segment();
        int length = payloadLength(wc.byteLength(i), mtu);
        DatagramEnd ep = targets.endpoint();
        if (ep != null && !closing && length >= 0 && deliverable(wc, i, buf)) {
            sender.set(wc, i, buf);
            try {
                ep.handler().onDatagram(ep, sender, buf.asSlice(GRH, length));
            } catch (Throwable t) {
                ep.callbackFailed(t);
            } finally {
                sender.clear();
            }
        }
        postReceive(slot);
    }

    /**
     * The payload bytes of a received datagram whose completion says {@code byteLength} (byte_len,
     * unsigned, the 40 GRH bytes included), or -1 if that cannot be a datagram we posted for: less
     * than the GRH, or more than the {@code mtu + GRH} bytes each receive offers. The provider
     * should never report more than we posted, but byte_len used to size the slice handed to the
     * application unchecked (beyond the MTU it reached past the datagram, beyond the slot it threw
     * on the poller): an impossible length now drops the datagram like a short one.
     */
    static int payloadLength(int byteLength, int mtu) {
        long payload = Integer.toUnsignedLong(byteLength) - GRH;
        return payload < 0 || payload > mtu ? -1 : (int) payload;
    }

    /** Not a loopback of our own datagram to a group that asked for none. */
    private boolean deliverable(WorkCompletions wc, int i, MemorySegment buf) {
        if (targets.noLoopback.isEmpty() || wc.srcQp(i) != qpNum || (wc.flags(i) & WcFlags.GRH) == 0) {
            return true;
        }
        InetAddress dst = grhAddress(buf, false);
        return dst == null || !targets.noLoopback.contains(dst);
    }

    /**
     * The source or destination address in the 40 bytes before the payload. RoCE v2 over IPv4
     * puts the IPv4 header in the last 20 of them (as rdma-core's get_grh_header_version tells
     * them apart: version 4, IHL 5 at byte 20); otherwise it is a GRH with the GIDs at 8 and 24.
     */
    public static InetAddress grhAddress(MemorySegment grh, boolean source) {
        if (grh.get(ValueLayout.JAVA_BYTE, 20) == 0x45) {
            byte[] ip = grh.asSlice(source ? 32 : 36, 4).toArray(ValueLayout.JAVA_BYTE);
            try {
                return InetAddress.getByAddress(ip);
            } catch (UnknownHostException e) {
                return null;
            }
        }
        return gidAddress(grh, source ? 8 : 24);
    }

    /** The IPv4 address of an IPv4-mapped GID in the GRH at {@code offset} (8: source, 24: destination), else the IPv6 one. */
    public static InetAddress gidAddress(MemorySegment grh, int offset) {
        byte[] raw = grh.asSlice(offset, 16).toArray(ValueLayout.JAVA_BYTE);
        try {
            return InetAddress.getByAddress(raw);   // an IPv4-mapped address comes back as Inet4Address
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private void postReceive(int slot) {
        SlotPool.Slot s = recvSlots[slot];
        recv.set(0, RECV | slot).sge(0, 0, s.address(), mtu + GRH, s.lkey());
        try {
            qp.postRecv(recv, 1);
        } catch (RdmaException e) {
            if (!closing) {
                LOG.log(Level.WARNING, targets.endpoint() + ": posting a receive failed: " + e.getMessage());
            }
        }
    }

    private void complete(CmFuture<?> f) {
        DatagramEnd ep = targets.endpoint();
        if (ep != null) {
            ep.callbacks().execute(() -> f.complete(null));
        } else {
            f.complete(null);
        }
    }

    /** The sender of the datagram being delivered; one per path, valid during the callback only. */
    private final class SenderView implements DatagramSender {
        private WorkCompletions wc;
        private int index;
        private MemorySegment buf;

        void set(WorkCompletions wc, int index, MemorySegment buf) {
            this.wc = wc;
            this.index = index;
            this.buf = buf;
        }

        void clear() {
            this.wc = null;
            this.buf = null;
        }

        private void check() {
            if (wc == null) {
                throw new IllegalStateException("a DatagramSender is valid only during onDatagram");
            }
        }

        @Override
        public int queuePairNumber() {
            check();
            return wc.srcQp(index);
        }

        @Override
        public boolean hasImmediateData() {
            check();
            return (wc.flags(index) & WcFlags.WITH_IMM) != 0;
        }

        @Override
        public int immediateData() {
            return hasImmediateData() ? wc.immData(index) : 0;
        }

        @Override
        public InetAddress address() {
            check();
            return (wc.flags(index) & WcFlags.GRH) != 0 ? grhAddress(buf, true) : null;
        }

        @Override
        public boolean toGroup() {
            check();
            if ((wc.flags(index) & WcFlags.GRH) == 0) {
                return false;
            }
            InetAddress dst = grhAddress(buf, false);
            return dst != null && (dst.isMulticastAddress()
                    || dst instanceof java.net.Inet6Address && (dst.getAddress()[0] & 0xFF) == 0xFF);
        }

        @Override
        public DatagramPeer replyTarget(int qpn) {
            check();
            AddressHandle ah = pd.createAhFrom(wc, index, buf.asSlice(0, GRH), portNumber);
            return new PeerImpl(ah, targets, qpn, UDP_QKEY, null);
        }

        @Override
        public String toString() {
            return wc == null ? "sender[gone]" : "sender[qpn " + wc.srcQp(index) + "]";
        }
    }

    // ------------------------------------------------------------------ teardown (dispatcher)

    public void closing() {
        closing = true;
    }

    /** The QP is destroyed: fail what waits, destroy the address handles, return the buffers. */
    public void release() {
        List<CmFuture<?>> failed = new ArrayList<>();
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            closing = true;
            for (int i = 0; i < sendFutures.length; i++) {
                if (sendFutures[i] != null) {
                    failed.add(sendFutures[i]);
                    sendFutures[i] = null;
                }
            }
            for (Pending p : queue) {
                if (p.future != null) {
                    failed.add(p.future);
                }
            }
            queue.clear();
        }
        for (CmFuture<?> f : failed) {
            f.completeExceptionally(new ConnectionClosedException(targets.endpoint() + " closed", List.of()));
        }
        for (DatagramTarget h : List.copyOf(targets.handles)) {
            ((TargetHandle) h).destroy();
        }
        if (pool != null) {   // null: detached (host tests)
            pool.release(recvSlots);
            pool.release(sendSlots);
            recv.close();
            send.close();
        }
    }
}
