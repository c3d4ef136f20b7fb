package org.rdmacm4j.benchmarks;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * The floor of a Java implementation (issue 21): rdma-core's C event loop
 * ({@code benchmarks/src/main/c/cm_event_loop.c}, latency mode) written call for call in Java over
 * raw FFM, with no framework, no state machine, no other thread and no allocation per connection.
 * {@code FfmFloor latency SERVER CLIENT PORT K} makes K lone connections in one process (both ends),
 * each closed before the next, exactly as {@code cm_event_loop latency} does: the same librdmacm
 * calls in the same order (rdma_create_qp with librdmacm's own PD and CQs, epoll over the
 * non-blocking channel, drain to EAGAIN, disconnect and destroy after the ack), and prints the same
 * {@code latency_us I T} lines (rdma_create_id of the client to its ESTABLISHED event), after the
 * last connection (C's stdio buffers them too). {@code FfmFloor warm SERVER CLIENT PORT K FROM N} is
 * {@code cm_event_loop warm}: the K lone connections with a {@link Window} over FROM..K (the whole
 * process's CPU per connection, its threads' run-queue wait, perf switched on for the window), then a
 * storm of N in the same process (all N connects at once, all disconnected by the client), printed as
 * {@code storm n N setup_s S teardown_s T}; {@code FfmFloor storm SERVER CLIENT PORT N} is the storm
 * alone, in a fresh process. So run-all's warm group runs it beside C and CmBench with the same
 * arguments.
 *
 * <p>What it is for: the difference between this program and the C loop, in one guest boot, is
 * what running in the JVM costs by itself (the JIT's code instead of gcc's, downcall transitions,
 * the JVM's own threads); the difference between {@code ConnectCost} and this program is what
 * rdmacm4j's design costs on top. Run it like the C loop ({@code benchmarks/floor-cost.sh}).
 *
 * <p>Pointers travel as {@code long}s and structs are read through one unbounded segment, so a
 * connection allocates nothing on the Java heap. Single-threaded; every wait has a deadline (60 s
 * without an event exits 3, as the C loop does). Linux x86-64 / aarch64 only (struct layouts as
 * librdmacm's headers give them there).
 */
public final class FfmFloor extends FloorLoop {
    // enum rdma_cm_event_type (rdma/rdma_cma.h)
    private static final int ADDR_RESOLVED = 0;
    private static final int ROUTE_RESOLVED = 2;
    private static final int CONNECT_REQUEST = 4;
    private static final int ESTABLISHED = 9;
    private static final int DISCONNECTED = 10;
    private static final int TIMEWAIT_EXIT = 15;
    private static final int RDMA_PS_TCP = 0x0106;
    private static final int IBV_QPT_RC = 2;
    private static final int EAGAIN = 11;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLLIN = 1;
    private static final int AF_INET = 2;

    /**
     * The structs the loop touches, as librdmacm's and libibverbs' headers lay them out on 64-bit
     * Linux (only the leading fields it reads or writes); no native state, so a host test can check
     * them (FfmFloorTest).
     */
    static final class Structs {
        static final StructLayout CM_ID = MemoryLayout.structLayout(
                ADDRESS.withName("verbs"), ADDRESS.withName("channel"), ADDRESS.withName("context"));
        static final StructLayout CM_EVENT = MemoryLayout.structLayout(
                ADDRESS.withName("id"), ADDRESS.withName("listen_id"), JAVA_INT.withName("event"),
                JAVA_INT.withName("status"));
        static final StructLayout CONN_PARAM = MemoryLayout.structLayout(
                ADDRESS.withName("private_data"), JAVA_BYTE.withName("private_data_len"),
                JAVA_BYTE.withName("responder_resources"), JAVA_BYTE.withName("initiator_depth"),
                JAVA_BYTE.withName("flow_control"), JAVA_BYTE.withName("retry_count"),
                JAVA_BYTE.withName("rnr_retry_count"), JAVA_BYTE.withName("srq"), MemoryLayout.paddingLayout(1),
                JAVA_INT.withName("qp_num"), MemoryLayout.paddingLayout(4));
        static final StructLayout QP_CAP = MemoryLayout.structLayout(
                JAVA_INT.withName("max_send_wr"), JAVA_INT.withName("max_recv_wr"), JAVA_INT.withName("max_send_sge"),
                JAVA_INT.withName("max_recv_sge"), JAVA_INT.withName("max_inline_data"));
        static final StructLayout QP_INIT_ATTR = MemoryLayout.structLayout(
                ADDRESS.withName("qp_context"), ADDRESS.withName("send_cq"), ADDRESS.withName("recv_cq"),
                ADDRESS.withName("srq"), QP_CAP.withName("cap"), JAVA_INT.withName("qp_type"),
                JAVA_INT.withName("sq_sig_all"), MemoryLayout.paddingLayout(4));

        static long offset(StructLayout s, String field) {
            return s.byteOffset(groupElement(field));
        }

        private Structs() { }
    }

    private static final StructLayout CONN_PARAM = Structs.CONN_PARAM;
    private static final StructLayout QP_CAP = Structs.QP_CAP;
    private static final StructLayout QP_INIT_ATTR = Structs.QP_INIT_ATTR;
    private static final long ID_CONTEXT = Structs.offset(Structs.CM_ID, "context");
    private static final long EV_ID = Structs.offset(Structs.CM_EVENT, "id");
    private static final long EV_EVENT = Structs.offset(Structs.CM_EVENT, "event");
    private static final long EV_STATUS = Structs.offset(Structs.CM_EVENT, "status");

    /** Every native address, read through one segment: no segment allocated per struct read. */
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final VarHandle ERRNO = Linker.Option.captureStateLayout().varHandle(groupElement("errno"));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup CM = SymbolLookup.libraryLookup("librdmacm.so.1", Arena.global());
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final FunctionDescriptor INT_LONG = FunctionDescriptor.of(JAVA_INT, JAVA_LONG);
    private static final FunctionDescriptor INT_LONG_LONG = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle CREATE_CHANNEL = cm("rdma_create_event_channel", FunctionDescriptor.of(JAVA_LONG));
    private static final MethodHandle CREATE_ID = cm("rdma_create_id",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle RESOLVE_ADDR = cm("rdma_resolve_addr",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle RESOLVE_ROUTE = cm("rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle CREATE_QP = cm("rdma_create_qp",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle CONNECT = cm("rdma_connect", INT_LONG_LONG);
    private static final MethodHandle ACCEPT = cm("rdma_accept", INT_LONG_LONG);
    private static final MethodHandle DISCONNECT = cm("rdma_disconnect", INT_LONG);
    private static final MethodHandle DESTROY_QP = cm("rdma_destroy_qp", FunctionDescriptor.ofVoid(JAVA_LONG));
    private static final MethodHandle DESTROY_ID = cm("rdma_destroy_id", INT_LONG);
    private static final MethodHandle BIND_ADDR = cm("rdma_bind_addr", INT_LONG_LONG);
    private static final MethodHandle LISTEN = cm("rdma_listen", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle ACK = cm("rdma_ack_cm_event", INT_LONG);
    /** The one call whose errno the loop reads (EAGAIN: the channel is drained). */
    private static final MethodHandle GET_EVENT = LINKER.downcallHandle(CM.findOrThrow("rdma_get_cm_event"),
            INT_LONG_LONG, Linker.Option.captureCallState("errno"));
    private static final MethodHandle EPOLL_CREATE = libc("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle EPOLL_CTL = libc("epoll_ctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle EPOLL_WAIT = libc("epoll_wait",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT));
    private static final MethodHandle FCNTL = LINKER.downcallHandle(LIBC.findOrThrow("fcntl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));

    private static final int CLIENT = 1;
    private static final int SERVER = 2;

    // The loop's state, as the C program's globals (one thread).
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment out = arena.allocate(ADDRESS);         // rdma_create_id / get_cm_event's out-parameter
    private final MemorySegment errno = arena.allocate(Linker.Option.captureStateLayout());
    private final MemorySegment epollEvent = arena.allocate(16);      // struct epoll_event (packed, 12 bytes on x86-64)
    private final MemorySegment paramTemplate = arena.allocate(CONN_PARAM);
    private final MemorySegment param = arena.allocate(CONN_PARAM);
    /** The QP's attributes as C's loop writes them; copied into {@link #qpAttr} before every create. */
    private final MemorySegment qpAttrTemplate = arena.allocate(QP_INIT_ATTR);
    /** rdma_create_qp writes back into its argument (the CQs it made, the caps it got): a fresh copy per QP. */
    private final MemorySegment qpAttr = arena.allocate(QP_INIT_ATTR);
    private final MemorySegment serverAddr = arena.allocate(16);
    private final MemorySegment clientAddr = arena.allocate(16);
    private long channel;
    private int epfd;
    private long listener;
    /** Client ids by connection index, for the disconnects (C's clients[]). */
    private final long[] clients;

    private FfmFloor(int k, int stormN) {
        super(k);
        clients = new long[k + stormN];
        paramTemplate.set(JAVA_BYTE, Structs.offset(CONN_PARAM, "responder_resources"), (byte) 1);
        paramTemplate.set(JAVA_BYTE, Structs.offset(CONN_PARAM, "initiator_depth"), (byte) 1);
        paramTemplate.set(JAVA_BYTE, Structs.offset(CONN_PARAM, "retry_count"), (byte) 7);
        MemorySegment cap = qpAttrTemplate.asSlice(Structs.offset(QP_INIT_ATTR, "cap"), QP_CAP);
        for (String f : new String[] {"max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge"}) {
            cap.set(JAVA_INT, Structs.offset(QP_CAP, f), 1);
        }
        qpAttrTemplate.set(JAVA_INT, Structs.offset(QP_INIT_ATTR, "qp_type"), IBV_QPT_RC);
    }

    public static void main(String[] args) throws Throwable {
        Args a = Args.parseOrExit("FfmFloor", args);
        var floor = new FfmFloor(a.k(), a.stormN());
        address(floor.serverAddr, a.server(), a.port());
        address(floor.clientAddr, a.client(), 0);
        floor.run(a);
    }

    /** The channel (non-blocking, in an epoll set) and the listener, as C's main() sets them up. */
    @Override
    void open() throws Throwable {
        channel = (long) CREATE_CHANNEL.invokeExact();
        check(channel != 0, "rdma_create_event_channel");
        int fd = ALL.get(JAVA_INT, channel);   // struct rdma_event_channel { int fd; }
        int flags = (int) FCNTL.invokeExact(fd, F_GETFL, 0);
        check((int) FCNTL.invokeExact(fd, F_SETFL, flags | O_NONBLOCK) == 0, "fcntl");
        epfd = (int) EPOLL_CREATE.invokeExact(0);
        check(epfd >= 0, "epoll_create1");
        epollEvent.set(JAVA_INT, 0, EPOLLIN);
        check((int) EPOLL_CTL.invokeExact(epfd, EPOLL_CTL_ADD, fd, epollEvent.address()) == 0, "epoll_ctl");
        check((int) CREATE_ID.invokeExact(channel, out.address(), 0L, RDMA_PS_TCP) == 0, "rdma_create_id");
        listener = out.get(JAVA_LONG, 0);
        check((int) BIND_ADDR.invokeExact(listener, serverAddr.address()) == 0, "rdma_bind_addr");
        check((int) LISTEN.invokeExact(listener, 4096) == 0, "rdma_listen");
    }

    @Override
    void disconnect(int index) throws Throwable {
        check((int) DISCONNECT.invokeExact(clients[index]) == 0, "rdma_disconnect");
    }

    @Override
    void close() throws Throwable {
        check((int) DESTROY_ID.invokeExact(listener) == 0, "rdma_destroy_id");
    }

    /** Connection {@code index}'s client id: created (its context says client) and resolving. */
    @Override
    void startConnect(int index) throws Throwable {
        started();
        check((int) CREATE_ID.invokeExact(channel, out.address(), (long) CLIENT, RDMA_PS_TCP) == 0, "rdma_create_id");
        long id = out.get(JAVA_LONG, 0);
        clients[index] = id;
        check((int) RESOLVE_ADDR.invokeExact(id, clientAddr.address(), serverAddr.address(), 2000) == 0,
                "rdma_resolve_addr");
    }

    /** epoll_wait, then drain the channel to EAGAIN, as the C loop's pump(). */
    @Override
    void pump() throws Throwable {
        int n = (int) EPOLL_WAIT.invokeExact(epfd, epollEvent.address(), 1, 60_000);
        if (n == 0) {
            System.err.printf("FfmFloor: no CM event for 60 s (established %d, disconnected %d)%n", established, disconnected);
            System.exit(3);
        }
        for (;;) {
            if ((int) GET_EVENT.invokeExact(errno, channel, out.address()) != 0) {
                int e = (int) ERRNO.get(errno, 0L);
                check(e == EAGAIN, "rdma_get_cm_event");
                return;
            }
            long event = out.get(JAVA_LONG, 0);
            long id = ALL.get(JAVA_LONG, event + EV_ID);
            long toDestroy = handle(event, id) ? id : 0;
            check((int) ACK.invokeExact(event) == 0, "rdma_ack_cm_event");
            if (toDestroy != 0) {
                // The client side disconnected first; the server side answers when it sees it.
                if (ALL.get(JAVA_LONG, toDestroy + ID_CONTEXT) == SERVER) {
                    int ignored = (int) DISCONNECT.invokeExact(toDestroy);
                }
                DESTROY_QP.invokeExact(toDestroy);
                check((int) DESTROY_ID.invokeExact(toDestroy) == 0, "rdma_destroy_id");
            }
        }
    }

    /** Handles one event; true if its id is to be destroyed after the ack. */
    private boolean handle(long event, long id) throws Throwable {
        int type = ALL.get(JAVA_INT, event + EV_EVENT);
        switch (type) {
            case ADDR_RESOLVED -> check((int) RESOLVE_ROUTE.invokeExact(id, 2000) == 0, "rdma_resolve_route");
            case ROUTE_RESOLVED -> {
                createQp(id);
                MemorySegment.copy(paramTemplate, 0, param, 0, CONN_PARAM.byteSize());
                check((int) CONNECT.invokeExact(id, param.address()) == 0, "rdma_connect");
            }
            case CONNECT_REQUEST -> {
                ALL.set(JAVA_LONG, id + ID_CONTEXT, SERVER);
                createQp(id);
                MemorySegment.copy(paramTemplate, 0, param, 0, CONN_PARAM.byteSize());
                check((int) ACCEPT.invokeExact(id, param.address()) == 0, "rdma_accept");
            }
            case ESTABLISHED -> {
                if (ALL.get(JAVA_LONG, id + ID_CONTEXT) == CLIENT) {
                    clientEstablished();
                }
            }
            case DISCONNECTED -> {
                disconnected++;
                return true;
            }
            case TIMEWAIT_EXIT -> { }
            default -> {
                System.err.printf("FfmFloor: unexpected event %d (status %d)%n", type, ALL.get(JAVA_INT, event + EV_STATUS));
                System.exit(1);
            }
        }
        return false;
    }

    /** rdma_create_qp with librdmacm's PD and CQs, from a fresh copy of the attributes (C's stack struct). */
    private void createQp(long id) throws Throwable {
        MemorySegment.copy(qpAttrTemplate, 0, qpAttr, 0, QP_INIT_ATTR.byteSize());
        check((int) CREATE_QP.invokeExact(id, 0L, qpAttr.address()) == 0, "rdma_create_qp");
    }

    private static void address(MemorySegment sin, String ip, int port) throws Exception {
        if (!(InetAddress.getByName(ip) instanceof Inet4Address a)) {
            throw new IllegalArgumentException("FfmFloor: not an IPv4 address: " + ip);
        }
        sin.fill((byte) 0);
        sin.set(JAVA_SHORT, 0, (short) AF_INET);
        sin.set(JAVA_BYTE, 2, (byte) (port >>> 8));   // sin_port, network order
        sin.set(JAVA_BYTE, 3, (byte) port);
        MemorySegment.copy(a.getAddress(), 0, sin, JAVA_BYTE, 4, 4);
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("FfmFloor: " + what + " failed");
            System.exit(1);
        }
    }

    private static MethodHandle cm(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(CM.findOrThrow(name), fd);
    }

    private static MethodHandle libc(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LIBC.findOrThrow(name), fd);
    }
}
