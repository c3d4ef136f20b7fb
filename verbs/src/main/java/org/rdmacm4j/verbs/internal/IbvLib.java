package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

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

    static final MethodHandle GET_DEVICE_LIST = Native.errno(L, "ibv_get_device_list",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    static final MethodHandle FREE_DEVICE_LIST = Native.plain(L, "ibv_free_device_list",
            FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle GET_DEVICE_NAME = Native.critical(L, "ibv_get_device_name",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    /** Bound three ways for the downcall benchmark; the library uses the critical one. */
    public static final MethodHandle WC_STATUS_STR = Native.critical(L, "ibv_wc_status_str",
            FunctionDescriptor.of(ADDRESS, JAVA_INT));
    public static final MethodHandle WC_STATUS_STR_DEFAULT = Native.plain(L, "ibv_wc_status_str",
            FunctionDescriptor.of(ADDRESS, JAVA_INT));
    public static final MethodHandle WC_STATUS_STR_ERRNO = Native.errno(L, "ibv_wc_status_str",
            FunctionDescriptor.of(ADDRESS, JAVA_INT));
    static final MethodHandle EVENT_TYPE_STR = Native.critical(L, "ibv_event_type_str",
            FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** ibv_get_device_list; {@code count} receives the length. NULL result: errno (ENOSYS = no kernel support). */
    public static MemorySegment getDeviceList(MemorySegment count) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment list = (MemorySegment) GET_DEVICE_LIST.invokeExact(st, count);
            return Native.checkPointer("ibv_get_device_list", list, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void freeDeviceList(MemorySegment list) {
        try {
            FREE_DEVICE_LIST.invokeExact(list);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static String deviceName(MemorySegment device) {
        try {
            return Native.string((MemorySegment) GET_DEVICE_NAME.invokeExact(device), 64);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static String wcStatusStr(int status) {
        try {
            return Native.string((MemorySegment) WC_STATUS_STR.invokeExact(status), 256);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static String eventTypeStr(int type) {
        try {
            return Native.string((MemorySegment) EVENT_TYPE_STR.invokeExact(type), 256);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
