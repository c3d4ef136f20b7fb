package org.rdmacm4j.verbs.cm;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.ADDRESS_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.CmLib;
import org.rdmacm4j.verbs.internal.Decode;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Scratch;
import org.rdmacm4j.verbs.internal.Secrets;
import org.rdmacm4j.verbs.internal.Sockaddrs;
import org.rdmacm4j.verbs.ibv.AsyncEventType;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QueuePair;
import java.util.function.Supplier;

/**
 * One {@code struct rdma_cm_id}: made by {@link CmEventChannel#createId} or delivered by a
 * CONNECT_REQUEST event. Its events arrive on its channel.
 *
 * <p>Arguments are checked before any native call (IllegalArgumentException); a closed id throws
 * IllegalStateException; a native failure is an {@link org.rdmacm4j.verbs.RdmaException}.
 *
 * <p>Threads: only the owner's thread (in rdmacm4j, the CM dispatcher). The address and port
 * getters read memory librdmacm updates when events are processed, so they too belong there.
 */
public final class CmId implements AutoCloseable {
    static final long VERBS = Layouts.RDMA_CM_ID.offset("verbs");
    static final long QP = Layouts.RDMA_CM_ID.offset("qp");
    static final long PS = Layouts.RDMA_CM_ID.offset("ps");
    static final long PORT_NUM = Layouts.RDMA_CM_ID.offset("port_num");
    static final long QP_TYPE = Layouts.RDMA_CM_ID.offset("qp_type");
    static final long SRC_ADDR = Layouts.RDMA_CM_ID.offset("route.addr.src_addr");
    static final long DST_ADDR = Layouts.RDMA_CM_ID.offset("route.addr.dst_addr");


    /** UD private data limits: SIDR REQ and REP (rdma_connect.3, rdma_accept.3). */
    public static final int MAX_UD_CONNECT_PRIVATE_DATA = 180;
    public static final int MAX_UD_ACCEPT_PRIVATE_DATA = 136;

    private CmEventChannel channel;
    private DeviceContext context;
    private final MemorySegment id;
    /** The id's address, passed to librdmacm as it is (Native.POINTER): librdmacm's memory, alive until rdma_destroy_id. */
    private final long address;
    private final Ownership ownership;
    private final PortSpace portSpace;
    /**
     * The application's object for this id, as rdma_cm_id's {@code context} pointer is C's: an
     * event's id then leads to it without a map lookup (rdmacm4j's port keeps its own wrapper here;
     * an identity map cost a native identity-hash call per lookup under C1). Owner thread.
     */
    private Object attachment;
    /**
     * {@code id->verbs} once it is non-zero, else 0 (read again until it is). librdmacm sets it once,
     * when the id first gets a device (ucma_get_device, guarded by {@code !id_priv->cma_dev}), and
     * keeps it, with a reference on the device, until rdma_destroy_id: a non-zero value never changes
     * for the id's life, so it is read from memory only until it is set. Owner thread, like every
     * read of the id. Each read was a VarHandle chain under C1 (deviceHandle: 65 of the dispatcher's
     * 6,176 Java samples in a warm CmBench run, issue 21).
     */
    private long verbs;

    CmId(CmEventChannel channel, MemorySegment id, Ownership channelOwnership) {
        this.channel = channel;
        this.id = id;
        PortSpace ps = PortSpace.of(id.get(JAVA_INT_UNALIGNED, PS));
        this.portSpace = ps;
        this.address = id.address();   // the description holds values, never this wrapper
        this.ownership = new Ownership(new What(ps, address), channelOwnership);
        ownership.watchSampled(this);
    }

    /** Sets the application's object for this id (see {@link #attachment()}). Owner thread. */
    public void attach(Object attachment) {
        this.attachment = attachment;
    }

    /** The object last given to {@link #attach}, or null. Owner thread. */
    public Object attachment() {
        return attachment;
    }

    /** The native address, as a stable identity for logs and maps. */
    public long handle() {
        return address;
    }

    /** The port space the id was created with. */
    public PortSpace portSpace() {
        return portSpace;
    }

    /** The channel this id's events arrive on. */
    public CmEventChannel channel() {
        return channel;
    }

    private MemorySegment open() {
        ownership.ensureOpen();
        return id;
    }

    /** The id's address, checked open: what the librdmacm calls take. */
    private long openAddress() {
        ownership.ensureOpen();
        return address;
    }

    Ownership ownership() {
        return ownership;
    }

    /** {@code id->qp_type}, read from the id's memory as every event did before; for the channel. */
    int qpType() {
        return id.get(JAVA_INT_UNALIGNED, QP_TYPE);
    }

    /** {@code rdma_bind_addr}. Port 0 picks a free port. */
    public void bind(InetSocketAddress address) {
        Sockaddrs.check(address, "address");
        long self = openAddress();
        try (Scratch arena = Scratch.open()) {
            CmLib.bindAddr(self, Sockaddrs.write(arena, address).address());
        }
    }

    /**
     * {@code rdma_resolve_addr}: ADDR_RESOLVED or ADDR_ERROR follows on the channel.
     *
     * @param source local address to bind, or null to let the route decide
     * @param destination the peer
     * @param timeout how long rdma_cm may take (1 ms .. Integer.MAX_VALUE ms)
     */
    public void resolveAddress(InetSocketAddress source, InetSocketAddress destination, Duration timeout) {
        if (source != null) {
            Sockaddrs.check(source, "source");
        }
        Sockaddrs.check(destination, "destination");
        int ms = timeoutMs(timeout);
        long self = openAddress();
        try (Scratch arena = Scratch.open()) {
            long src = source == null ? 0L : Sockaddrs.write(arena, source).address();
            CmLib.resolveAddr(self, src, Sockaddrs.write(arena, destination).address(), ms);
        }
    }

    /** {@code rdma_resolve_route}: ROUTE_RESOLVED or ROUTE_ERROR follows. */
    public void resolveRoute(Duration timeout) {
        int ms = timeoutMs(timeout);
        CmLib.resolveRoute(openAddress(), ms);
    }

    /** {@code rdma_listen}: CONNECT_REQUEST events follow. {@code backlog} 0 means the kernel default. */
    public void listen(int backlog) {
        if (backlog < 0) {   // hand-written, not checkArgument: see checkRange
            throw new IllegalArgumentException("backlog " + backlog + " is negative");
        }
        CmLib.listen(openAddress(), backlog);
    }

    /** {@code rdma_connect}: ESTABLISHED, REJECTED, UNREACHABLE or CONNECT_ERROR follows. */
    public void connect(ConnParam param) {
        int max = portSpace == PortSpace.UDP ? MAX_UD_CONNECT_PRIVATE_DATA : ConnParam.MAX_CONNECT_PRIVATE_DATA;
        checkParam(param, max, "rdma_connect");
        long self = openAddress();
        try (Scratch arena = Scratch.open()) {
            CmLib.connect(self, connParam(arena, param));
        }
    }

    /** {@code rdma_accept} on an id from a CONNECT_REQUEST. */
    public void accept(ConnParam param) {
        int max = portSpace == PortSpace.UDP ? MAX_UD_ACCEPT_PRIVATE_DATA : ConnParam.MAX_ACCEPT_PRIVATE_DATA;
        checkParam(param, max, "rdma_accept");
        long self = openAddress();
        try (Scratch arena = Scratch.open()) {
            CmLib.accept(self, connParam(arena, param));
        }
    }

    /** {@code rdma_reject} with private data for the peer (at most 148 bytes; 136 on UD). */
    public void reject(byte[] privateData) {
        checkArgument(privateData != null, "privateData must not be null (use an empty array)");
        int max = portSpace == PortSpace.UDP ? MAX_UD_ACCEPT_PRIVATE_DATA : ConnParam.MAX_REJECT_PRIVATE_DATA;
        // Hand-written, not checkArgument: the int arguments would be boxed on the happy path, and
        // this runs for every connection on the dispatcher (C1-only launchers do no escape analysis).
        if (privateData.length > max) {
            throw new IllegalArgumentException("rdma_reject private data of " + privateData.length
                    + " bytes: at most " + max + " on " + portSpace);
        }
        MemorySegment self = open();
        try (Scratch arena = Scratch.open()) {
            MemorySegment data = privateData.length == 0 ? MemorySegment.NULL
                    : arena.allocateFrom(JAVA_BYTE, privateData);
            CmLib.reject(self, data, (byte) privateData.length);
        }
    }

    /** {@code rdma_disconnect}: DISCONNECTED follows on both sides. */
    public void disconnect() {
        CmLib.disconnect(openAddress());
    }

    /** {@code rdma_notify}: tells rdma_cm of a QP async event (IBV_EVENT_COMM_EST, usually). */
    public void notify(AsyncEventType event) {
        checkArgument(event != null, "event must not be null");
        CmLib.notify(open(), event.value());
    }

    /** {@code rdma_join_multicast} (UDP ids, address resolved): MULTICAST_JOIN or MULTICAST_ERROR follows. */
    public void joinMulticast(InetSocketAddress group) {
        Sockaddrs.check(group, "group");
        MemorySegment self = open();
        try (Scratch arena = Scratch.open()) {
            CmLib.joinMulticast(self, Sockaddrs.write(arena, group));
        }
    }

    /**
     * {@code rdma_join_multicast_ex} with the address and join flags set: MULTICAST_JOIN or
     * MULTICAST_ERROR follows. With {@link McJoinFlag#SENDONLY_FULLMEMBER} librdmacm does not attach
     * the QP, so the id may send to the group and receives nothing from it.
     */
    public void joinMulticast(InetSocketAddress group, McJoinFlag flag) {
        Sockaddrs.check(group, "group");
        checkArgument(flag != null, "flag must not be null");
        MemorySegment self = open();
        try (Scratch arena = Scratch.open()) {
            CStruct l = Layouts.RDMA_CM_JOIN_MC_ATTR_EX;
            MemorySegment attr = arena.allocate(l.size(), l.alignment());
            attr.set(ValueLayout.JAVA_INT_UNALIGNED, l.offset("comp_mask"),
                    CmLib.RDMA_CM_JOIN_MC_ATTR_ADDRESS | CmLib.RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS);
            attr.set(ValueLayout.JAVA_INT_UNALIGNED, l.offset("join_flags"), flag.value());
            attr.set(ValueLayout.ADDRESS_UNALIGNED, l.offset("addr"), Sockaddrs.write(arena, group));
            CmLib.joinMulticastEx(self, attr);
        }
    }

    /** {@code rdma_leave_multicast}. */
    public void leaveMulticast(InetSocketAddress group) {
        Sockaddrs.check(group, "group");
        MemorySegment self = open();
        try (Scratch arena = Scratch.open()) {
            CmLib.leaveMulticast(self, Sockaddrs.write(arena, group));
        }
    }

    /**
     * {@code rdma_migrate_id}: this id's events now arrive on {@code target}. On a thread that owns
     * both channels (or while the target's owner makes no call on it): both channels' id tables change.
     */
    public void migrate(CmEventChannel target) {
        checkArgument(target != null, "target must not be null");
        MemorySegment self = open();
        CmLib.migrateId(self, target.segment());
        channel.ids.remove(address);
        ownership.reparent(channel.ownership(), target.ownership());
        target.ids.put(address, this);
        channel = target;
    }

    /** RDMA_OPTION_ID_TOS: IP type of service (0..255). */
    public void setTypeOfService(int tos) {
        checkRange("type of service", tos, 255);
        setByteOption(CmLib.RDMA_OPTION_ID_TOS, tos);
    }

    /** RDMA_OPTION_ID_ACK_TIMEOUT: QP local ACK timeout exponent (0..31), before connect/accept. */
    public void setAckTimeout(int timeout) {
        checkRange("ack timeout", timeout, 31);
        setByteOption(CmLib.RDMA_OPTION_ID_ACK_TIMEOUT, timeout);
    }

    /** RDMA_OPTION_ID_REUSEADDR (~SO_REUSEADDR), before bind. */
    public void setReuseAddress(boolean on) {
        setIntOption(CmLib.RDMA_OPTION_ID_REUSEADDR, on ? 1 : 0);
    }

    /** RDMA_OPTION_ID_AFONLY (~IPV6_V6ONLY), before bind. */
    public void setAfOnly(boolean on) {
        setIntOption(CmLib.RDMA_OPTION_ID_AFONLY, on ? 1 : 0);
    }

    private void setByteOption(int name, int value) {
        MemorySegment self = open();
        try (Scratch arena = Scratch.open()) {
            MemorySegment v = arena.allocate(JAVA_BYTE);
            v.set(JAVA_BYTE, 0, (byte) value);
            CmLib.setOption(self, CmLib.RDMA_OPTION_ID, name, v);
        }
    }

    private void setIntOption(int name, int value) {
        MemorySegment self = open();
        try (Scratch arena = Scratch.open()) {
            CmLib.setOption(self, CmLib.RDMA_OPTION_ID, name, arena.allocateFrom(JAVA_INT, value));
        }
    }

    /** The local address ({@code rdma_get_local_addr}), or null while unbound. */
    public InetSocketAddress localAddress() {
        return Sockaddrs.read(open(), SRC_ADDR);   // in place: no slice of the id
    }

    /** The peer address ({@code rdma_get_peer_addr}), or null while unresolved. */
    public InetSocketAddress peerAddress() {
        return Sockaddrs.read(open(), DST_ADDR);
    }

    /** {@code rdma_get_src_port}, in host order. */
    public int sourcePort() {
        return Sockaddrs.portFromNetworkOrder(CmLib.srcPort(open()));
    }

    /** {@code rdma_get_dst_port}, in host order. */
    public int destinationPort() {
        return Sockaddrs.portFromNetworkOrder(CmLib.dstPort(open()));
    }

    /** The RDMA port the id is bound to (0 before address resolution or bind to a device). */
    public int portNumber() {
        return Decode.u8(open(), PORT_NUM);
    }

    /** True once the id is bound to a device ({@code id->verbs} set). */
    public boolean hasDevice() {
        return deviceHandle() != 0L;   // a pointer compared, not a segment made
    }

    /** {@code ibv_get_device_name(id->verbs->device)}, or null before the id is bound to a device. */
    public String deviceName() {
        MemorySegment verbs = open().get(Layouts.IBV_CONTEXT.pointerField(), VERBS);
        if (verbs.address() == 0L) {
            return null;
        }
        MemorySegment device = verbs.get(ADDRESS_UNALIGNED, Layouts.IBV_CONTEXT.offset("device"));
        return IbvLib.deviceName(device);
    }

    /**
     * The address of the device context librdmacm bound this id to ({@code id->verbs}, the same
     * value as {@code context().handle()}), or 0 before it is bound; makes no view. While an id is
     * bound, librdmacm holds that context open (its device reference counts the id).
     */
    public long deviceHandle() {
        long v = verbs;
        if (v != 0L) {
            ownership.ensureOpen();
            return v;
        }
        v = open().get(JAVA_LONG_UNALIGNED, VERBS);
        verbs = v;
        return v;
    }

    /**
     * The device context librdmacm bound this id to ({@code id->verbs}), as a borrowed view:
     * allocate the PD for {@link #createQp} from it. The same view is returned each time; it is
     * closed with the id, which fails (IllegalStateException) while PDs made from it are open.
     * IllegalStateException if no device is bound yet (before ADDR_RESOLVED or a bind to a
     * device address).
     */
    public DeviceContext context() {
        long v = deviceHandle();
        if (v == 0L) {
            throw new IllegalStateException(this + " is not bound to a device yet");
        }
        if (context == null || context.isClosed()) {
            context = Secrets.ibv().borrowContext(Layouts.IBV_CONTEXT.at(v), "CmId.context", ownership);
        }
        return context;
    }

    /**
     * {@code rdma_create_qp}: a QP on this id's device, moved through its states by rdma_cm
     * (connect/accept). {@code pd} must come from {@link #context()} or a {@link CmDevices}
     * context of the same device. The QP must be closed (rdma_destroy_qp) before the id.
     */
    public QueuePair createQp(ProtectionDomain pd, QpInitAttributes attrs) {
        checkArgument(pd != null && attrs != null, "pd and attrs must not be null");
        MemorySegment self = open();
        Secrets.Ibv ibv = Secrets.ibv();
        MemorySegment pdSegment = ibv.segment(pd);
        if (self.get(JAVA_LONG_UNALIGNED, QP) != 0L) {
            throw new IllegalStateException(this + " already has a QP");
        }
        try (Scratch arena = Scratch.open()) {
            MemorySegment init = Secrets.allocate(arena, Layouts.IBV_QP_INIT_ATTR);
            Ownership[] parents = ibv.writeQpInitAttr(attrs, init, 2);   // the PD and this id in the spare slots
            CmLib.createQp(address, pdSegment.address(), init.address());
            // A long and a slice of ALL_MEMORY (CStruct.at), not a pointerField() read (an indirect
            // VarHandle chain under C1; createQp's reads were 99 of the dispatcher's 6,176 Java samples
            // in a warm CmBench run, issue 21).
            MemorySegment qp = Layouts.IBV_QP.at(self.get(JAVA_LONG_UNALIGNED, QP));
            parents[parents.length - 2] = ibv.ownership(pd);
            parents[parents.length - 1] = ownership;
            return ibv.adoptQp(qp, pd, attrs, new DestroyQp(address), parents);
        }
    }

    /** True once closed. */
    public boolean isClosed() {
        return ownership.isClosed();
    }

    /**
     * {@code rdma_destroy_id}. The id's QP must be closed first (IllegalStateException otherwise).
     * Idempotent. Blocks while an event of this id is unacked, which {@link CmEventChannel}
     * never leaves behind.
     */
    @Override
    public void close() {
        if (ownership.isClosed()) {
            return;
        }
        if (context != null) {
            context.close();   // throws while PDs made from it are open
        }
        ownership.close(new DestroyId(address, channel));
    }

    @Override
    public String toString() {
        return ownership.toString();
    }

    /**
     * A filled rdma_conn_param in {@code arena}, by address (the arena holds it until closed), its private
     * data right after it: one slice, and the record's bytes read in place, not copied out first (one
     * connect or accept per connection end; the checks before it take the length the same way).
     */
    static long connParam(SegmentAllocator arena, ConnParam param) {
        byte[] data = param.privateDataUncopied();
        MemorySegment p = arena.allocate(Decode.connParamSize(data.length), Layouts.RDMA_CONN_PARAM.alignment());
        Decode.connParam(param, data, p);
        return p.address();
    }

    private void checkParam(ConnParam param, int maxPrivateData, String function) {
        checkArgument(param != null, "param must not be null");
        int len = param.privateDataLength();   // no copy of the bytes to count them
        // Hand-written, not checkArgument: the int arguments would be boxed on the happy path, and
        // this runs for every connection on the dispatcher (C1-only launchers do no escape analysis).
        if (len > maxPrivateData) {
            throw new IllegalArgumentException(function + " private data of " + len + " bytes: at most "
                    + maxPrivateData + " on " + portSpace);
        }
        checkArgument(param.retryCount() <= 7 && param.rnrRetryCount() <= 7,
                "retry counts are 3-bit (0..7): %s", param);
    }

    static int timeoutMs(Duration timeout) {
        checkArgument(timeout != null, "timeout must not be null");
        long ms = timeout.toMillis();
        // Hand-written, not checkArgument(boolean, String, Object, int): too big for C1 to inline (its
        // failure path boxes), and this runs twice per connection (resolveAddress, resolveRoute).
        if (ms < 1 || ms > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("timeout " + timeout + " must be 1 ms .. " + Integer.MAX_VALUE + " ms");
        }
        return (int) ms;
    }

    private static void checkRange(String what, int v, int max) {
        // Hand-written, not checkArgument: the int arguments would be boxed on the happy path, and
        // this runs for every connection on the dispatcher (C1-only launchers do no escape analysis).
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(what + " " + v + " is out of range 0.." + max);
        }
    }

    /**
     * The description {@link Ownership} builds on first use: a record, not a lambda, so making one links
     * no call site at a process's first connection (a lambda's would be, since the build's AOT training
     * runs without a device and never reaches this constructor).
     */
    private record What(PortSpace portSpace, long address) implements Supplier<String> {
        @Override
        public String get() {
            return "CmId(" + portSpace + ", 0x" + Long.toHexString(address) + ")";
        }
    }

    // The destroy steps are records for the same reason: a lambda here would link a call site at the
    // process's first connection (rdma_create_qp) and first close (rdma_destroy_id).

    /** rdma_destroy_qp of the id's QP. */
    private record DestroyQp(long id) implements Runnable {
        @Override
        public void run() {
            CmLib.destroyQp(id);
        }
    }

    /** rdma_destroy_id, then the channel forgets the id. */
    private record DestroyId(long id, CmEventChannel channel) implements Runnable {
        @Override
        public void run() {
            CmLib.destroyId(id);
            channel.ids.remove(id);
        }
    }
}
