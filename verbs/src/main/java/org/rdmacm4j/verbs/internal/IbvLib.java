package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.ADDRESS_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.rdmacm4j.verbs.internal.Native.POINTER;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Raw libibverbs downcalls for exported symbols, each checked. Two error conventions, per the
 * man pages: pointer-returning calls give NULL and set errno (captured); int-returning destroy
 * and modify calls return the error number itself (ibv_modify_qp.3: "returns 0 on success, or
 * the value of errno on failure"), so those are linked without capture.
 *
 * <p>The static inline verbs (poll_cq, post_send, post_recv, post_srq_recv, req_notify_cq) are
 * not here: they go through the context's ops table (see {@code OpsTable}).
 */
public final class IbvLib {
    private IbvLib() { }

    private static final SymbolLookup L = Libraries.ibverbs();

    /*
     * Each downcall handle lives in its own holder class, linked on first use (the JVM initialises
     * a class when it is first touched): a process links only the functions it calls, and the
     * first connection does not pay for the ones it never calls (issue 21 item 3: linking all of
     * them at class initialisation cost 0.5-0.7 s per binding class in the guest). The handle stays
     * a static final, a constant for the JIT, as before. The holders are package-private so that
     * {@code Linking} can name those of a connection's path and link them ahead of the first one.
     *
     * The functions a connection calls (and those sharing their C signatures) take pointers as
     * POINTER, a long ({@link Native#POINTER} says why); the others keep ADDRESS.
     */
    static final class GetDeviceList {
        static final MethodHandle H = Native.errno(L, "ibv_get_device_list",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    static final class FreeDeviceList {
        static final MethodHandle H = Native.plain(L, "ibv_free_device_list",
                FunctionDescriptor.ofVoid(ADDRESS));
    }

    static final class GetDeviceName {
        static final MethodHandle H = Native.critical(L, "ibv_get_device_name",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    /** Pure, short, never blocks: critical (benchmarks/DowncallBenchmark measures what that buys). */
    static final class WcStatusStr {
        static final MethodHandle H = Native.critical(L, "ibv_wc_status_str",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    static final class EventTypeStr {
        static final MethodHandle H = Native.critical(L, "ibv_event_type_str",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    static final class OpenDevice {
        static final MethodHandle H = Native.errno(L, "ibv_open_device",
                FunctionDescriptor.of(Layouts.IBV_CONTEXT.returned(), ADDRESS));
    }

    static final class CloseDevice {
        static final MethodHandle H = Native.errno(L, "ibv_close_device",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    static final class QueryDevice {
        static final MethodHandle H = Native.plain(L, "ibv_query_device",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    /** The exported compat symbol; used only when the context has no extended query_port op. */
    static final class QueryPortCompat {
        static final MethodHandle H = Native.plain(L, "ibv_query_port",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
    }

    /** verbs_context.query_port(context, port_num, port_attr, port_attr_len): called through the pointer. */
    static final class QueryPortOp {
        static final MethodHandle H = Native.pointer("verbs_context.query_port",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));
    }

    static final class QueryGid {
        static final MethodHandle H = Native.errno(L, "ibv_query_gid",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS));
    }

    static final class AllocPd {
        static final MethodHandle H = Native.errno(L, "ibv_alloc_pd",
                FunctionDescriptor.of(Layouts.IBV_PD.returned(), ADDRESS));
    }

    static final class DeallocPd {
        static final MethodHandle H = Native.plain(L, "ibv_dealloc_pd",
                FunctionDescriptor.of(JAVA_INT, POINTER));
    }

    static final class RegMr {
        static final MethodHandle H = Native.errno(L, "ibv_reg_mr",
                FunctionDescriptor.of(Layouts.IBV_MR.returned(), ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
    }

    static final class RegMrIova2 {
        static final MethodHandle H = Native.errno(L, "ibv_reg_mr_iova2",
                FunctionDescriptor.of(Layouts.IBV_MR.returned(), ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT));
    }

    static final class DeregMr {
        static final MethodHandle H = Native.plain(L, "ibv_dereg_mr",
                FunctionDescriptor.of(JAVA_INT, POINTER));
    }

    static final class CreateCompChannel {
        static final MethodHandle H = Native.errno(L, "ibv_create_comp_channel",
                FunctionDescriptor.of(Layouts.IBV_COMP_CHANNEL.returned(), POINTER));
    }

    static final class DestroyCompChannel {
        static final MethodHandle H = Native.plain(L, "ibv_destroy_comp_channel",
                FunctionDescriptor.of(JAVA_INT, POINTER));
    }

    static final class CreateCq {
        static final MethodHandle H = Native.errno(L, "ibv_create_cq",
                FunctionDescriptor.of(Layouts.IBV_CQ.returned(), POINTER, JAVA_INT, POINTER, POINTER, JAVA_INT));
    }

    static final class DestroyCq {
        static final MethodHandle H = Native.plain(L, "ibv_destroy_cq",
                FunctionDescriptor.of(JAVA_INT, POINTER));
    }

    /**
     * Blocking (a read on the channel fd): never critical. Pointers as longs, although the plain
     * handle below keeps ADDRESS: this way each shares a descriptor (and its downcall stub) with
     * another function a connection links anyway, rdma_create_qp and post_send.
     */
    static final class GetCqEvent {
        static final MethodHandle H = Native.errno(L, "ibv_get_cq_event",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER, POINTER));
    }

    /**
     * The same without errno capture, tried first: the JDK's capture path slices the capture
     * segment on every call, an allocation per completion event where no escape analysis runs (C1).
     */
    static final class GetCqEventPlain {
        static final MethodHandle H = Native.plain(L, "ibv_get_cq_event",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    static final class AckCqEvents {
        static final MethodHandle H = Native.plain(L, "ibv_ack_cq_events",
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    }

    static final class CreateQp {
        static final MethodHandle H = Native.errno(L, "ibv_create_qp",
                FunctionDescriptor.of(Layouts.IBV_QP.returned(), ADDRESS, ADDRESS));
    }

    static final class DestroyQp {
        static final MethodHandle H = Native.plain(L, "ibv_destroy_qp",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    static final class ModifyQp {
        static final MethodHandle H = Native.plain(L, "ibv_modify_qp",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER, JAVA_INT));
    }

    static final class QueryQp {
        static final MethodHandle H = Native.plain(L, "ibv_query_qp",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    }

    static final class CreateAh {
        static final MethodHandle H = Native.errno(L, "ibv_create_ah",
                FunctionDescriptor.of(Layouts.IBV_AH.returned(), ADDRESS, ADDRESS));
    }

    static final class CreateAhFromWc {
        static final MethodHandle H = Native.errno(L, "ibv_create_ah_from_wc",
                FunctionDescriptor.of(Layouts.IBV_AH.returned(), ADDRESS, ADDRESS, ADDRESS, JAVA_BYTE));
    }

    static final class DestroyAh {
        static final MethodHandle H = Native.plain(L, "ibv_destroy_ah",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    static final class CreateSrq {
        static final MethodHandle H = Native.errno(L, "ibv_create_srq",
                FunctionDescriptor.of(Layouts.IBV_SRQ.returned(), ADDRESS, ADDRESS));
    }

    static final class ModifySrq {
        static final MethodHandle H = Native.plain(L, "ibv_modify_srq",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    }

    static final class DestroySrq {
        static final MethodHandle H = Native.plain(L, "ibv_destroy_srq",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** Blocking (a read on the async fd): never critical. */
    static final class GetAsyncEvent {
        static final MethodHandle H = Native.errno(L, "ibv_get_async_event",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    static final class AckAsyncEvent {
        static final MethodHandle H = Native.plain(L, "ibv_ack_async_event",
                FunctionDescriptor.ofVoid(ADDRESS));
    }

    /** IB_UVERBS_ACCESS_OPTIONAL_RANGE: access bits that need ibv_reg_mr_iova2 (verbs.h __ibv_reg_mr). */
    public static final int ACCESS_OPTIONAL_RANGE = 0x3FF00000;
    /** The abi_compat value marking an extended context (__VERBS_ABI_IS_EXTENDED, verbs.h). */
    public static final long VERBS_ABI_IS_EXTENDED = -1L;

    public static MemorySegment openDevice(MemorySegment device) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment ctx = (MemorySegment) OpenDevice.H.invokeExact(st, device);
            return Native.checkPointer("ibv_open_device", ctx, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void closeDevice(MemorySegment ctx) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) CloseDevice.H.invokeExact(st, ctx);
            Native.checkErrno("ibv_close_device", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void queryDevice(MemorySegment ctx, MemorySegment attr) {
        try {
            Native.checkReturned("ibv_query_device", (int) QueryDevice.H.invokeExact(ctx, attr));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * ibv_query_port as the verbs.h macro does it: through verbs_context.query_port when the
     * context is extended and the op is within the provider's verbs_context size, else the
     * exported compat symbol with the attr zeroed first.
     */
    public static void queryPort(MemorySegment ctx, int port, MemorySegment attr) {
        try {
            MemorySegment op = extendedOp(ctx, Layouts.VERBS_CONTEXT.offset("query_port"));
            int rc;
            if (op != null) {
                rc = (int) QueryPortOp.H.invokeExact(op, ctx, (byte) port, attr, Layouts.IBV_PORT_ATTR.size());
            } else {
                attr.fill((byte) 0);
                rc = (int) QueryPortCompat.H.invokeExact(ctx, (byte) port, attr);
            }
            Native.checkReturned("ibv_query_port", rc);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * verbs_get_ctx_op(ctx, op): the struct verbs_context ends with the struct ibv_context, so it
     * starts offsetof(struct verbs_context, context) bytes before it; an op is usable only if the
     * context is extended, the provider's verbs_context is large enough to hold it, and it is set.
     */
    static MemorySegment extendedOp(MemorySegment ctx, long opOffset) {
        long abi = ctx.get(ADDRESS_UNALIGNED, Layouts.IBV_CONTEXT.offset("abi_compat")).address();
        if (abi != VERBS_ABI_IS_EXTENDED) {
            return null;
        }
        long contextOffset = Layouts.VERBS_CONTEXT.offset("context");
        MemorySegment vctx = MemorySegment.ofAddress(ctx.address() - contextOffset)
                .reinterpret(Layouts.VERBS_CONTEXT.size());
        long sz = vctx.get(JAVA_LONG_UNALIGNED, Layouts.VERBS_CONTEXT.offset("sz"));
        if (sz < Layouts.VERBS_CONTEXT.size() - opOffset) {
            return null;
        }
        MemorySegment op = vctx.get(ADDRESS_UNALIGNED, opOffset);
        return op.address() == 0L ? null : op;
    }

    public static void queryGid(MemorySegment ctx, int port, int index, MemorySegment gid) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) QueryGid.H.invokeExact(st, ctx, (byte) port, index, gid);
            Native.checkErrno("ibv_query_gid", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static MemorySegment allocPd(MemorySegment ctx) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment pd = (MemorySegment) AllocPd.H.invokeExact(st, ctx);
            return Native.checkPointer("ibv_alloc_pd", pd, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void deallocPd(long pd) {
        try {
            Native.checkReturned("ibv_dealloc_pd", (int) DeallocPd.H.invokeExact(pd));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** ibv_reg_mr as the verbs.h macro does it: optional access bits go through ibv_reg_mr_iova2. */
    public static MemorySegment regMr(MemorySegment pd, MemorySegment buffer, int access) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment mr;
            if ((access & ACCESS_OPTIONAL_RANGE) == 0) {
                mr = (MemorySegment) RegMr.H.invokeExact(st, pd, buffer, buffer.byteSize(), access);
            } else {
                mr = (MemorySegment) RegMrIova2.H.invokeExact(st, pd, buffer, buffer.byteSize(), buffer.address(),
                        access);
            }
            return Native.checkPointer("ibv_reg_mr", mr, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void deregMr(long mr) {
        try {
            Native.checkReturned("ibv_dereg_mr", (int) DeregMr.H.invokeExact(mr));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static MemorySegment createCompChannel(long ctx) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment ch = (MemorySegment) CreateCompChannel.H.invokeExact(st, ctx);
            return Native.checkPointer("ibv_create_comp_channel", ch, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void destroyCompChannel(long ch) {
        try {
            Native.checkReturned("ibv_destroy_comp_channel", (int) DestroyCompChannel.H.invokeExact(ch));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code channel} 0 for none (NULL). */
    public static MemorySegment createCq(long ctx, int cqe, long channel, int compVector) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment cq = (MemorySegment) CreateCq.H.invokeExact(st, ctx, cqe, 0L, channel, compVector);
            return Native.checkPointer("ibv_create_cq", cq, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void destroyCq(long cq) {
        try {
            Native.checkReturned("ibv_destroy_cq", (int) DestroyCq.H.invokeExact(cq));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * ibv_get_cq_event: the CQ pointer into {@code cqOut}; false on EAGAIN (non-blocking channel,
     * nothing pending). Blocking on a blocking channel.
     */
    public static boolean getCqEvent(MemorySegment channel, MemorySegment cqOut, MemorySegment ctxOut) {
        try {
            // Fast path without errno capture. On failure, ask again with capture to learn why: the
            // call has no side effect when it fails, and an event that arrived in between is simply taken.
            if ((int) GetCqEventPlain.H.invokeExact(channel, cqOut, ctxOut) == 0) {
                return true;
            }
            MemorySegment st = Errno.state();
            int rc = (int) GetCqEvent.H.invokeExact(st, channel.address(), cqOut.address(), ctxOut.address());
            if (rc != 0) {
                if (Errno.read(st) == Libc.EAGAIN) {
                    return false;
                }
                throw Native.errnoFailure("ibv_get_cq_event", st);
            }
            return true;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void ackCqEvents(MemorySegment cq, int n) {
        try {
            AckCqEvents.H.invokeExact(cq, n);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static MemorySegment createQp(MemorySegment pd, MemorySegment initAttr) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment qp = (MemorySegment) CreateQp.H.invokeExact(st, pd, initAttr);
            return Native.checkPointer("ibv_create_qp", qp, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void destroyQp(MemorySegment qp) {
        try {
            Native.checkReturned("ibv_destroy_qp", (int) DestroyQp.H.invokeExact(qp));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void modifyQp(long qp, long attr, int mask) {
        try {
            Native.checkReturned("ibv_modify_qp", (int) ModifyQp.H.invokeExact(qp, attr, mask));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void queryQp(MemorySegment qp, MemorySegment attr, int mask, MemorySegment initAttr) {
        try {
            Native.checkReturned("ibv_query_qp", (int) QueryQp.H.invokeExact(qp, attr, mask, initAttr));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static MemorySegment createAh(MemorySegment pd, MemorySegment ahAttr) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment ah = (MemorySegment) CreateAh.H.invokeExact(st, pd, ahAttr);
            return Native.checkPointer("ibv_create_ah", ah, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static MemorySegment createAhFromWc(MemorySegment pd, MemorySegment wc, MemorySegment grh, int port) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment ah = (MemorySegment) CreateAhFromWc.H.invokeExact(st, pd, wc, grh, (byte) port);
            return Native.checkPointer("ibv_create_ah_from_wc", ah, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void destroyAh(MemorySegment ah) {
        try {
            Native.checkReturned("ibv_destroy_ah", (int) DestroyAh.H.invokeExact(ah));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static MemorySegment createSrq(MemorySegment pd, MemorySegment initAttr) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment srq = (MemorySegment) CreateSrq.H.invokeExact(st, pd, initAttr);
            return Native.checkPointer("ibv_create_srq", srq, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** IBV_SRQ_MAX_WR and IBV_SRQ_LIMIT (enum ibv_srq_attr_mask). */
    public static final int IBV_SRQ_MAX_WR = 1;
    public static final int IBV_SRQ_LIMIT = 1 << 1;

    public static void modifySrq(MemorySegment srq, MemorySegment attr, int mask) {
        try {
            Native.checkReturned("ibv_modify_srq", (int) ModifySrq.H.invokeExact(srq, attr, mask));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void destroySrq(MemorySegment srq) {
        try {
            Native.checkReturned("ibv_destroy_srq", (int) DestroySrq.H.invokeExact(srq));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** ibv_get_async_event into {@code event}; false on EAGAIN (non-blocking async fd, nothing pending). */
    public static boolean getAsyncEvent(MemorySegment ctx, MemorySegment event) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) GetAsyncEvent.H.invokeExact(st, ctx, event);
            if (rc != 0) {
                if (Errno.read(st) == Libc.EAGAIN) {
                    return false;
                }
                throw Native.errnoFailure("ibv_get_async_event", st);
            }
            return true;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void ackAsyncEvent(MemorySegment event) {
        try {
            AckAsyncEvent.H.invokeExact(event);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** ibv_get_device_list; {@code count} receives the length. NULL result: errno (ENOSYS = no kernel support). */
    public static MemorySegment getDeviceList(MemorySegment count) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment list = (MemorySegment) GetDeviceList.H.invokeExact(st, count);
            return Native.checkPointer("ibv_get_device_list", list, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void freeDeviceList(MemorySegment list) {
        try {
            FreeDeviceList.H.invokeExact(list);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static String deviceName(MemorySegment device) {
        try {
            return Native.string((MemorySegment) GetDeviceName.H.invokeExact(device), 64);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static String wcStatusStr(int status) {
        try {
            return Native.string((MemorySegment) WcStatusStr.H.invokeExact(status), 256);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static String eventTypeStr(int type) {
        try {
            return Native.string((MemorySegment) EventTypeStr.H.invokeExact(type), 256);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
