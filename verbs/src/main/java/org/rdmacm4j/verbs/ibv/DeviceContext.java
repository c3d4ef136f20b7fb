package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.ADDRESS_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.rdmacm4j.verbs.Rdma;
import org.rdmacm4j.verbs.internal.CStruct;
import org.rdmacm4j.verbs.internal.Decode;
import org.rdmacm4j.verbs.internal.IbvLib;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Libc;
import org.rdmacm4j.verbs.internal.OpsTable;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Registry;
import org.rdmacm4j.verbs.internal.Scratch;

/**
 * An open RDMA device ({@code struct ibv_context}). Either owned ({@link #open}: closing it calls
 * ibv_close_device) or borrowed from librdmacm (an id's {@code verbs}, rdma_get_devices: closing
 * it only ends this view, the context stays librdmacm's). PDs, completion channels and CQs are
 * made from it and must be closed before it.
 *
 * <p>Threads: create/close on the owner's thread. {@link #getAsyncEvent()} belongs to the one
 * thread that handles async events (in rdmacm4j, the CM dispatcher).
 */
public final class DeviceContext implements AutoCloseable {
    private static final CStruct CTX = Layouts.IBV_CONTEXT;
    private static final CStruct DA = Layouts.IBV_DEVICE_ATTR;
    private static final CStruct PA = Layouts.IBV_PORT_ATTR;
    private static final CStruct AE = Layouts.IBV_ASYNC_EVENT;
    private static final int OPS = OpsTable.Op.values().length;

    private final MemorySegment context;
    private final Ownership ownership;
    private final boolean owned;
    private final String deviceName;
    /**
     * {@code context->ops} function pointers by {@link OpsTable.Op#ordinal()}, read on first use: a
     * context's ops table does not change after open, and each CQ and QP made on it takes two, once
     * per connection (reading them from every new object made a segment for its context pointer
     * and one per function pointer). Filled racily on purpose: a slot holds null or a segment for
     * the one value the table has, and segments are immutable (final fields).
     */
    private final MemorySegment[] ops = new MemorySegment[OPS];

    DeviceContext(MemorySegment context, boolean owned, String what, Ownership parent) {
        this.context = CTX.view(context);
        this.owned = owned;
        this.deviceName = IbvLib.deviceName(this.context.get(ADDRESS_UNALIGNED, CTX.offset("device")));
        this.ownership = new Ownership(what + "(" + deviceName + ")", parent);
        ownership.watch(this);
    }

    /** Names of the RDMA devices present ({@code ibv_get_device_list}). */
    public static List<String> deviceNames() {
        Rdma.requireLibraries();
        try (Scratch arena = Scratch.open()) {
            MemorySegment n = arena.allocate(JAVA_INT);
            MemorySegment list = IbvLib.getDeviceList(n);
            try {
                int count = n.get(JAVA_INT_UNALIGNED, 0);
                MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * (count + 1L));
                List<String> names = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    names.add(IbvLib.deviceName(devices.getAtIndex(ADDRESS_UNALIGNED, i)));
                }
                return List.copyOf(names);
            } finally {
                IbvLib.freeDeviceList(list);
            }
        }
    }

    /** {@code ibv_open_device} on the device called {@code name}; IllegalArgumentException if there is none. */
    public static DeviceContext open(String name) {
        checkArgument(name != null && !name.isEmpty(), "device name must not be empty");
        Rdma.requireLibraries();
        try (Scratch arena = Scratch.open()) {
            MemorySegment n = arena.allocate(JAVA_INT);
            MemorySegment list = IbvLib.getDeviceList(n);
            try {
                int count = n.get(JAVA_INT_UNALIGNED, 0);
                MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * (count + 1L));
                List<String> seen = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    MemorySegment dev = devices.getAtIndex(ADDRESS_UNALIGNED, i);
                    String devName = IbvLib.deviceName(dev);
                    if (name.equals(devName)) {
                        return new DeviceContext(IbvLib.openDevice(dev), true, "DeviceContext", null);
                    }
                    seen.add(devName);
                }
                throw new IllegalArgumentException("no RDMA device named " + name + " (present: " + seen + ")");
            } finally {
                IbvLib.freeDeviceList(list);
            }
        }
    }

    MemorySegment segment() {
        ownership.ensureOpen();
        return context;
    }

    Ownership ownership() {
        return ownership;
    }

    /**
     * {@code context->ops.<op>}, for the CQs and QPs made on this context (their {@code context}
     * member is this context); UnsupportedOperationException if the provider lacks it.
     */
    MemorySegment op(OpsTable.Op op) {
        int i = op.ordinal();
        MemorySegment fn = ops[i];
        if (fn == null) {
            ops[i] = fn = OpsTable.op(context, op);
        }
        return fn;
    }

    /** The native address: equal for two views of the same context. */
    public long handle() {
        return context.address();
    }

    /**
     * True if the device is iWARP ({@code device->transport_type == IBV_TRANSPORT_IWARP}): its
     * connections go through the iWARP CM (MPA), whose events differ from the IB CM's (no
     * TIMEWAIT_EXIT, refusals as errno values). RoCE and InfiniBand devices report IBV_TRANSPORT_IB.
     */
    public boolean isIwarp() {
        MemorySegment device = segment().get(Layouts.IBV_DEVICE.pointerField(), CTX.offset("device"));
        return device.get(JAVA_INT_UNALIGNED, Layouts.IBV_DEVICE.offset("transport_type")) == IBV_TRANSPORT_IWARP;
    }

    /** {@code IBV_TRANSPORT_IWARP} of {@code enum ibv_transport_type}. */
    private static final int IBV_TRANSPORT_IWARP = 1;

    /** {@code ibv_get_device_name}. */
    public String deviceName() {
        return deviceName;
    }

    /** True for a view of a context librdmacm owns. */
    public boolean isBorrowed() {
        return !owned;
    }

    /** {@code context->num_comp_vectors}. */
    public int completionVectors() {
        return segment().get(JAVA_INT_UNALIGNED, CTX.offset("num_comp_vectors"));
    }

    /** {@code ibv_query_device}. */
    public DeviceAttributes query() {
        MemorySegment ctx = segment();
        try (Scratch arena = Scratch.open()) {
            MemorySegment a = arena.allocate(DA.size(), DA.alignment());
            IbvLib.queryDevice(ctx, a);
            return new DeviceAttributes(a.asSlice(DA.offset("fw_ver"), 64).getString(0),
                    a.get(JAVA_LONG_UNALIGNED, DA.offset("node_guid")), a.get(JAVA_LONG_UNALIGNED, DA.offset("sys_image_guid")),
                    a.get(JAVA_LONG_UNALIGNED, DA.offset("max_mr_size")), a.get(JAVA_LONG_UNALIGNED, DA.offset("page_size_cap")),
                    i(a, DA, "vendor_id"), i(a, DA, "vendor_part_id"), i(a, DA, "hw_ver"), i(a, DA, "max_qp"),
                    i(a, DA, "max_qp_wr"), i(a, DA, "device_cap_flags"), i(a, DA, "max_sge"), i(a, DA, "max_sge_rd"),
                    i(a, DA, "max_cq"), i(a, DA, "max_cqe"), i(a, DA, "max_mr"), i(a, DA, "max_pd"),
                    i(a, DA, "max_qp_rd_atom"), i(a, DA, "max_qp_init_rd_atom"), i(a, DA, "atomic_cap"),
                    i(a, DA, "max_ah"), i(a, DA, "max_srq"), i(a, DA, "max_srq_wr"), i(a, DA, "max_srq_sge"),
                    Short.toUnsignedInt(a.get(JAVA_SHORT_UNALIGNED, DA.offset("max_pkeys"))),
                    Decode.u8(a, DA.offset("local_ca_ack_delay")), Decode.u8(a, DA.offset("phys_port_cnt")));
        }
    }

    /** {@code ibv_query_port} (ports are numbered from 1). */
    public PortAttributes queryPort(int port) {
        checkPort(port);
        MemorySegment ctx = segment();
        try (Scratch arena = Scratch.open()) {
            MemorySegment a = arena.allocate(PA.size(), PA.alignment());
            a.fill((byte) 0);
            IbvLib.queryPort(ctx, port, a);
            return new PortAttributes(PortState.of(i(a, PA, "state")), Mtu.of(i(a, PA, "max_mtu")),
                    Mtu.of(i(a, PA, "active_mtu")), i(a, PA, "gid_tbl_len"), i(a, PA, "port_cap_flags"),
                    Integer.toUnsignedLong(i(a, PA, "max_msg_sz")), Decode.u16(a, PA.offset("pkey_tbl_len")),
                    Decode.u16(a, PA.offset("lid")), Decode.u16(a, PA.offset("sm_lid")), Decode.u8(a, PA.offset("lmc")),
                    Decode.u8(a, PA.offset("active_width")), Decode.u8(a, PA.offset("active_speed")),
                    Decode.u8(a, PA.offset("phys_state")), Decode.u8(a, PA.offset("link_layer")));
        }
    }

    /** {@code ibv_query_gid}. */
    public Gid queryGid(int port, int index) {
        checkPort(port);
        checkArgument(index >= 0, "GID index %s is negative", index);
        MemorySegment ctx = segment();
        try (Scratch arena = Scratch.open()) {
            MemorySegment g = arena.allocate(Layouts.IBV_GID.size(), Layouts.IBV_GID.alignment());
            IbvLib.queryGid(ctx, port, index, g);
            return Decode.gid(g, 0);
        }
    }

    /** {@code ibv_alloc_pd}. */
    public ProtectionDomain allocatePd() {
        return new ProtectionDomain(this, IbvLib.allocPd(segment()));
    }

    /** {@code ibv_create_comp_channel}. */
    public CompletionChannel createCompletionChannel() {
        return new CompletionChannel(this, IbvLib.createCompChannel(segment().address()));
    }

    /**
     * {@code ibv_create_cq} with at least {@code cqe} entries.
     *
     * @param channel completion channel for events, or null to poll only
     * @param compVector completion vector, 0 .. {@link #completionVectors()} - 1
     */
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
        checkArgument(cqe >= 1, "cqe %s must be at least 1", cqe);
        checkArgument(compVector >= 0, "compVector %s is negative", compVector);
        MemorySegment ctx = segment();
        checkArgument(!(channel != null && channel.context() != this && channel.context().handle() != handle()),
                "%s belongs to another device context", channel);
        long ch = channel == null ? 0L : channel.segment().address();
        return new CompletionQueue(this, channel, IbvLib.createCq(ctx.address(), cqe, ch, compVector));
    }

    /** {@code context->cmd_fd}: the uverbs file every command of this context goes through. */
    public int cmdFd() {
        return segment().get(JAVA_INT_UNALIGNED, CTX.offset("cmd_fd"));
    }

    /** {@code context->async_fd}, for poll/epoll. */
    public int asyncFd() {
        return segment().get(JAVA_INT_UNALIGNED, CTX.offset("async_fd"));
    }

    /** Sets O_NONBLOCK on the async fd: {@link #getAsyncEvent()} then returns null when there is none. */
    public void setAsyncNonBlocking(boolean nonBlocking) {
        Libc.setNonBlocking(asyncFd(), nonBlocking);
    }

    /**
     * {@code ibv_get_async_event}, copied, then {@code ibv_ack_async_event} in finally (so no QP,
     * CQ or SRQ destroy waits on an unacked event). Null if the fd is non-blocking and empty.
     * Blocking otherwise.
     */
    public AsyncEvent getAsyncEvent() {
        MemorySegment ctx = segment();
        try (Scratch arena = Scratch.open()) {
            MemorySegment e = arena.allocate(AE.size(), AE.alignment());
            if (!IbvLib.getAsyncEvent(ctx, e)) {
                return null;
            }
            try {
                return decode(e);
            } finally {
                IbvLib.ackAsyncEvent(e);
            }
        }
    }

    /** Waits up to {@code timeout} for the async fd, then gets one event; null on timeout. */
    public AsyncEvent getAsyncEvent(Duration timeout) {
        if (!Libc.awaitReadable(asyncFd(), timeout.toMillis())) {
            return null;
        }
        return getAsyncEvent();
    }

    private static AsyncEvent decode(MemorySegment e) {
        AsyncEventType type = AsyncEventType.of(e.get(JAVA_INT_UNALIGNED, AE.offset("event_type")));
        MemorySegment element = e.get(ADDRESS_UNALIGNED, AE.offset("element"));
        return switch (type.element()) {
            case QP -> new AsyncEvent(type, Registry.get(element.address(), QueuePair.class), null, null, 0,
                    element.address());
            case CQ -> new AsyncEvent(type, null, Registry.get(element.address(), CompletionQueue.class), null, 0,
                    element.address());
            case SRQ -> new AsyncEvent(type, null, null, Registry.get(element.address(), SharedReceiveQueue.class),
                    0, element.address());
            case WQ -> new AsyncEvent(type, null, null, null, 0, element.address());
            case PORT -> new AsyncEvent(type, null, null, null, e.get(JAVA_INT_UNALIGNED, AE.offset("element.port_num")), 0);
            case DEVICE -> new AsyncEvent(type, null, null, null, 0, 0);
        };
    }

    public boolean isClosed() {
        return ownership.isClosed();
    }

    /**
     * Closes the view; for an owned context {@code ibv_close_device}. PDs, channels and CQs made
     * from it must be closed first (IllegalStateException naming them). Idempotent.
     */
    @Override
    public void close() {
        ownership.close(() -> {
            if (owned) {
                IbvLib.closeDevice(context);
            }
        });
    }

    @Override
    public String toString() {
        return ownership.toString();
    }

    private static int i(MemorySegment s, CStruct t, String field) {
        return s.get(JAVA_INT_UNALIGNED, t.offset(field));
    }

    static void checkPort(int port) {
        checkArgument(port >= 1 && port <= 255, "port %s is out of range 1..255", port);
    }
}
