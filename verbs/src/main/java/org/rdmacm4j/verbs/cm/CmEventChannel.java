package org.rdmacm4j.verbs.cm;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.rdmacm4j.verbs.Rdma;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.internal.AddressTable;
import org.rdmacm4j.verbs.internal.CmLib;
import org.rdmacm4j.verbs.internal.Decode;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Libc;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Words;

/**
 * An rdma_cm event channel ({@code struct rdma_event_channel}) and the ids created on it.
 *
 * <p>Events come out as {@link CmEvent} copies: {@link #getEvent()} gets one, copies every field,
 * and acks it in {@code finally}, so every event is acked exactly once and an id is never left
 * with an unacked event (which would make {@code rdma_destroy_id} block forever).
 *
 * <p>Threads: only the owner's thread (in rdmacm4j, the CM dispatcher) gets events, creates and
 * closes ids (the table of its ids is not thread-safe); {@link #fd()} may be read by any thread.
 */
public final class CmEventChannel implements AutoCloseable {
    private static final long CHANNEL_FD = Layouts.RDMA_EVENT_CHANNEL.offset("fd");
    private static final long EV_ID = Layouts.RDMA_CM_EVENT.offset("id");
    private static final long EV_LISTEN_ID = Layouts.RDMA_CM_EVENT.offset("listen_id");
    private static final long EV_EVENT = Layouts.RDMA_CM_EVENT.offset("event");
    private static final long EV_STATUS = Layouts.RDMA_CM_EVENT.offset("status");
    private static final long EV_PARAM = Layouts.RDMA_CM_EVENT.offset("param");

    static {
        Words.check("rdma_cm_event", EV_EVENT, 4, EV_EVENT, EV_STATUS);   // read as one word in copy
    }

    private final MemorySegment channel;
    private final long address;   // the channel's, passed to the calls as it is (Native.POINTER)
    private final int fd;
    private final Ownership ownership;
    // the live ids by address, for the events' id pointers: owner thread only (AddressTable's comment)
    final AddressTable<CmId> ids = new AddressTable<>();
    // rdma_get_cm_event's and rdma_create_id's out-parameter, reused (owner thread only, never two
    // calls at once): no allocation and no scratch per event or per id.
    private final MemorySegment out = Arena.ofAuto().allocate(ADDRESS);
    private final long outAddress = out.address();

    private CmEventChannel(MemorySegment channel) {
        this.channel = channel;
        this.address = channel.address();
        this.fd = channel.get(JAVA_INT_UNALIGNED, CHANNEL_FD);
        this.ownership = new Ownership("CmEventChannel(fd " + fd + ")");
        ownership.watch(this);
    }

    /** {@code rdma_create_event_channel}. The fd is blocking until {@link #setNonBlocking}. */
    public static CmEventChannel create() {
        Rdma.requireLibraries();
        return new CmEventChannel(CmLib.createEventChannel());
    }

    /** The channel's file descriptor, for poll/epoll. Any thread. */
    public int fd() {
        return fd;
    }

    /** Sets O_NONBLOCK: {@link #getEvent()} then returns null instead of waiting. */
    public void setNonBlocking(boolean nonBlocking) {
        ownership.ensureOpen();
        Libc.setNonBlocking(fd, nonBlocking);
    }

    public boolean isNonBlocking() {
        ownership.ensureOpen();
        return Libc.isNonBlocking(fd);
    }

    /** {@code rdma_create_id} on this channel. */
    public CmId createId(PortSpace portSpace) {
        checkArgument(portSpace != null, "portSpace must not be null");
        ownership.ensureOpen();
        return register(CmLib.createId(address, out, portSpace.value()));
    }

    private CmId register(MemorySegment id) {
        CmId cmId = new CmId(this, id, ownership);
        ids.put(id.address(), cmId);
        return cmId;
    }

    /**
     * Gets the next event, copies it and acks it. Returns null if the channel is non-blocking
     * and empty. On a blocking channel this waits without bound: use {@link #getEvent(Duration)}
     * or poll {@link #fd()} first.
     */
    public CmEvent getEvent() {
        ownership.ensureOpen();
        return copyAndAck(CmLib.getCmEvent(address, outAddress, out));
    }

    /**
     * {@link #getEvent()} for a read that expects an event because the caller was just told the
     * channel is readable (its epoll reported the fd): the call is made without errno capture, and
     * again with it only if it fails. Returns null if the channel turned out empty, as getEvent does.
     * The first read of an epoll loop's drain; the reads after it, the last of which finds the
     * channel empty, are getEvent's.
     */
    public CmEvent getReadyEvent() {
        ownership.ensureOpen();
        return copyAndAck(CmLib.getReadyCmEvent(address, outAddress, out));
    }

    /** The event at {@code event} copied and acked; null for 0 (none). */
    private CmEvent copyAndAck(long event) {
        if (event == 0L) {
            return null;
        }
        try {
            return copy(event);
        } finally {
            CmLib.ackCmEvent(event);
        }
    }

    /**
     * Gets, copies and acks events until the channel is empty (EAGAIN) or {@code max} were
     * handed to {@code sink}; the way to serve a non-blocking channel from an epoll loop.
     * Returns how many were handed over. A sink that throws stops the drain; the event it was
     * given has been acked already.
     */
    public int drain(java.util.function.Consumer<CmEvent> sink, int max) {
        checkArgument(sink != null && max >= 1, "sink must not be null and max at least 1");
        if (!isNonBlocking()) {
            throw new IllegalStateException(this + " is blocking: drain would wait once it is empty");
        }
        int n = 0;
        CmEvent e;
        while (n < max && (e = getEvent()) != null) {
            n++;
            sink.accept(e);
        }
        return n;
    }

    /** Waits up to {@code timeout} for the channel to become readable, then gets one event; null on timeout. */
    public CmEvent getEvent(Duration timeout) {
        ownership.ensureOpen();
        if (!Libc.awaitReadable(fd, timeout.toMillis())) {
            return null;
        }
        return getEvent();
    }

    /*
     * The event is read by address out of Decode.ALL_MEMORY, at rdma_cm_event's offsets: no segment
     * per event. The id pointers are read as plain longs and only looked up: a MemorySegment is made
     * for an id pointer only when a CONNECT_REQUEST brings a new id. The param union is read in place
     * (no slice) on the RC path. event and status are one word, read once (three reads where there
     * were four, each a VarHandle chain under C1: 43 of the dispatcher's 6,176 Java samples in a warm
     * CmBench run, issue 21). A new id's pointer is sized by CStruct.at, not read through a pointer
     * var handle.
     */
    private CmEvent copy(long eventAddress) {
        MemorySegment all = Decode.ALL_MEMORY;
        long eventAndStatus = all.get(JAVA_LONG_UNALIGNED, eventAddress + EV_EVENT);
        CmEventType type = CmEventType.of(Words.lo(eventAndStatus));
        int status = Words.hi(eventAndStatus);
        long idAddress = all.get(JAVA_LONG_UNALIGNED, eventAddress + EV_ID);
        long listenAddress = all.get(JAVA_LONG_UNALIGNED, eventAddress + EV_LISTEN_ID);
        CmId id = ids.get(idAddress);
        if (id == null) {
            if (type != CmEventType.CONNECT_REQUEST) {
                throw new IllegalStateException("rdma_cm event " + type + " for an id unknown to this channel: 0x"
                        + Long.toHexString(idAddress));
            }
            // librdmacm created this id for the request: the caller owns it from now on.
            id = register(Layouts.RDMA_CM_ID.at(idAddress));
        }
        CmId listenId = listenAddress == 0L ? null : ids.get(listenAddress);
        boolean ud = id.qpType() == QpType.UD.value();
        ConnParam conn = ud || !carriesConnParam(type) ? null : Decode.connParam(all, eventAddress + EV_PARAM);
        UdParam udParam = ud ? Decode.udParam(all.asSlice(eventAddress + EV_PARAM, Layouts.RDMA_UD_PARAM.size())) : null;
        return new CmEvent(type, status, id, listenId, conn, udParam);
    }

    /**
     * The events of an RC id whose connection parameters mean something: CONNECT_REQUEST and
     * ESTABLISHED (rdma_get_cm_event(3)), CONNECT_RESPONSE (an id without a QP gets the accept's
     * parameters there instead) and REJECTED (the peer's reject private data). For the others the
     * kernel copies a zeroed block; decoding it (a record and a private-data copy per event, two of
     * every three events of a connection's life) would only cost the dispatcher.
     */
    private static boolean carriesConnParam(CmEventType type) {
        // comparisons, not an enum switch: no synthetic switch-map class to load at the first event
        return type == CmEventType.CONNECT_REQUEST || type == CmEventType.CONNECT_RESPONSE
                || type == CmEventType.ESTABLISHED || type == CmEventType.REJECTED;
    }

    /** {@code rdma_event_str}. Any thread. */
    public static String eventName(CmEventType type) {
        Rdma.requireLibraries();
        return CmLib.eventStr(type.value());
    }

    MemorySegment segment() {
        ownership.ensureOpen();
        return channel;
    }

    /** The channel's address, checked open; what the calls on a connection's path take. */
    long address() {
        ownership.ensureOpen();
        return address;
    }

    Ownership ownership() {
        return ownership;
    }

    /** True once closed. */
    public boolean isClosed() {
        return ownership.isClosed();
    }

    /**
     * {@code rdma_destroy_event_channel}. Every id created on (or migrated to) this channel must
     * be closed first: otherwise an IllegalStateException names them. Idempotent.
     */
    @Override
    public void close() {
        ownership.close(() -> CmLib.destroyEventChannel(address));
    }

    @Override
    public String toString() {
        return ownership.toString();
    }
}
