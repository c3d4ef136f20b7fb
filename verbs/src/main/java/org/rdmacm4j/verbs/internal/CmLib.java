package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.ADDRESS_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.rdmacm4j.verbs.internal.Native.POINTER;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Raw librdmacm downcalls, each checked: a failure becomes an {@code RdmaException} with the
 * captured errno (librdmacm returns -1 or NULL and sets errno). Every return code is looked at.
 *
 * <p>Callers are the typed classes of {@code org.rdmacm4j.verbs.cm}; they validate arguments
 * and ownership first. Any thread (librdmacm itself is thread-safe; ordering is the caller's).
 */
public final class CmLib {
    private CmLib() { }

    // rdma_set_option levels and names (rdma_cma.h).
    public static final int RDMA_OPTION_ID = 0;
    public static final int RDMA_OPTION_ID_TOS = 0;
    public static final int RDMA_OPTION_ID_REUSEADDR = 1;
    public static final int RDMA_OPTION_ID_AFONLY = 2;
    public static final int RDMA_OPTION_ID_ACK_TIMEOUT = 3;
    // enum rdma_cm_join_mc_attr_mask (rdma_cma.h): which members of rdma_cm_join_mc_attr_ex are set.
    public static final int RDMA_CM_JOIN_MC_ATTR_ADDRESS = 1;
    public static final int RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS = 1 << 1;
    /** The Q_Key rdma_cm gives UD QPs of RDMA_PS_UDP ids. */
    public static final int RDMA_UDP_QKEY = 0x01234567;

    private static final SymbolLookup L = Libraries.rdmacm();

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
    static final class CreateEventChannel {
        static final MethodHandle H = Native.errno(L, "rdma_create_event_channel",
                FunctionDescriptor.of(ADDRESS));
    }

    static final class DestroyEventChannel {
        static final MethodHandle H = Native.plain(L, "rdma_destroy_event_channel",
                FunctionDescriptor.ofVoid(POINTER));
    }

    static final class CreateId {
        static final MethodHandle H = Native.errno(L, "rdma_create_id",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER, POINTER, JAVA_INT));
    }

    static final class DestroyId {
        static final MethodHandle H = Native.errno(L, "rdma_destroy_id",
                FunctionDescriptor.of(JAVA_INT, POINTER));
    }

    static final class BindAddr {
        static final MethodHandle H = Native.errno(L, "rdma_bind_addr",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER));
    }

    static final class ResolveAddr {
        static final MethodHandle H = Native.errno(L, "rdma_resolve_addr",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER, POINTER, JAVA_INT));
    }

    static final class ResolveRoute {
        static final MethodHandle H = Native.errno(L, "rdma_resolve_route",
                FunctionDescriptor.of(JAVA_INT, POINTER, JAVA_INT));
    }

    static final class CreateQp {
        static final MethodHandle H = Native.errno(L, "rdma_create_qp",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER, POINTER));
    }

    static final class DestroyQp {
        static final MethodHandle H = Native.plain(L, "rdma_destroy_qp",
                FunctionDescriptor.ofVoid(POINTER));
    }

    static final class Connect {
        static final MethodHandle H = Native.errno(L, "rdma_connect",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER));
    }

    static final class Listen {
        static final MethodHandle H = Native.errno(L, "rdma_listen",
                FunctionDescriptor.of(JAVA_INT, POINTER, JAVA_INT));
    }

    static final class Accept {
        static final MethodHandle H = Native.errno(L, "rdma_accept",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER));
    }

    static final class Reject {
        static final MethodHandle H = Native.errno(L, "rdma_reject",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
    }

    static final class Notify {
        static final MethodHandle H = Native.errno(L, "rdma_notify",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    }

    static final class Disconnect {
        static final MethodHandle H = Native.errno(L, "rdma_disconnect",
                FunctionDescriptor.of(JAVA_INT, POINTER));
    }

    static final class JoinMulticast {
        static final MethodHandle H = Native.errno(L, "rdma_join_multicast",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    static final class JoinMulticastEx {
        static final MethodHandle H = Native.errno(L, "rdma_join_multicast_ex",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    static final class LeaveMulticast {
        static final MethodHandle H = Native.errno(L, "rdma_leave_multicast",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    static final class GetCmEvent {
        static final MethodHandle H = Native.errno(L, "rdma_get_cm_event",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER));
    }

    /** rdma_get_cm_event without errno capture: {@link #getReadyCmEvent}'s first try. */
    static final class GetCmEventPlain {
        static final MethodHandle H = Native.plain(L, "rdma_get_cm_event",
                FunctionDescriptor.of(JAVA_INT, POINTER, POINTER));
    }

    /**
     * Critical, no errno captured: librdmacm's rdma_ack_cm_event frees the event and, under the id's
     * mutex, counts it completed and signals the id's condition (ucma_complete_event): short, never
     * blocking on the kernel, never calling back. It fails only for a NULL event (ERR(EINVAL)), which
     * {@code CmEventChannel} never passes. One ack per event: the capture segment's checks, the VM's
     * errno copy and the thread-state transitions were the larger part of its cost.
     */
    static final class AckCmEvent {
        // The event as a plain address: CmEventChannel reads events by address, never through a
        // segment per event (see getCmEvent).
        static final MethodHandle H = Native.critical(L, "rdma_ack_cm_event",
                FunctionDescriptor.of(JAVA_INT, POINTER));
    }

    static final class GetSrcPort {
        static final MethodHandle H = Native.critical(L, "rdma_get_src_port",
                FunctionDescriptor.of(JAVA_SHORT, ADDRESS));
    }

    static final class GetDstPort {
        static final MethodHandle H = Native.critical(L, "rdma_get_dst_port",
                FunctionDescriptor.of(JAVA_SHORT, ADDRESS));
    }

    static final class GetDevices {
        static final MethodHandle H = Native.errno(L, "rdma_get_devices",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
    }

    static final class FreeDevices {
        static final MethodHandle H = Native.plain(L, "rdma_free_devices",
                FunctionDescriptor.ofVoid(POINTER));
    }

    static final class EventStr {
        static final MethodHandle H = Native.critical(L, "rdma_event_str",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    static final class SetOption {
        static final MethodHandle H = Native.errno(L, "rdma_set_option",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
    }

    static final class MigrateId {
        static final MethodHandle H = Native.errno(L, "rdma_migrate_id",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    }

    static final class InitQpAttr {
        static final MethodHandle H = Native.errno(L, "rdma_init_qp_attr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    }

    public static MemorySegment createEventChannel() {
        try {
            MemorySegment st = Errno.state();
            MemorySegment ch = (MemorySegment) CreateEventChannel.H.invokeExact(st);
            return Native.checkPointer("rdma_create_event_channel", ch, st)
                    .reinterpret(Layouts.RDMA_EVENT_CHANNEL.size());
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void destroyEventChannel(long ch) {
        try {
            DestroyEventChannel.H.invokeExact(ch);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * {@code out} is a pointer-sized cell receiving the new id, read through after the call (which
     * also keeps it alive across the call: only its address is passed).
     */
    public static MemorySegment createId(long ch, MemorySegment out, int portSpace) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) CreateId.H.invokeExact(st, ch, out.address(), 0L, portSpace);
            Native.checkErrno("rdma_create_id", rc, st);
            // One plain long read and a slice of ALL_MEMORY (CStruct.at), not a pointerField() read: under C1
            // that is an indirect VarHandle chain plus a segment, 90 of the dispatcher's 6,176 Java samples
            // in a warm CmBench run (issue 21).
            return Layouts.RDMA_CM_ID.at(out.get(JAVA_LONG_UNALIGNED, 0));
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void destroyId(long id) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) DestroyId.H.invokeExact(st, id);
            Native.checkErrno("rdma_destroy_id", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void bindAddr(long id, long addr) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) BindAddr.H.invokeExact(st, id, addr);
            Native.checkErrno("rdma_bind_addr", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code src} 0 for none (NULL). */
    public static void resolveAddr(long id, long src, long dst, int timeoutMs) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) ResolveAddr.H.invokeExact(st, id, src, dst, timeoutMs);
            Native.checkErrno("rdma_resolve_addr", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void resolveRoute(long id, int timeoutMs) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) ResolveRoute.H.invokeExact(st, id, timeoutMs);
            Native.checkErrno("rdma_resolve_route", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void createQp(long id, long pd, long initAttr) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) CreateQp.H.invokeExact(st, id, pd, initAttr);
            Native.checkErrno("rdma_create_qp", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void destroyQp(long id) {
        try {
            DestroyQp.H.invokeExact(id);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void connect(long id, long connParam) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) Connect.H.invokeExact(st, id, connParam);
            Native.checkErrno("rdma_connect", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void listen(long id, int backlog) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) Listen.H.invokeExact(st, id, backlog);
            Native.checkErrno("rdma_listen", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void accept(long id, long connParam) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) Accept.H.invokeExact(st, id, connParam);
            Native.checkErrno("rdma_accept", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void reject(MemorySegment id, MemorySegment data, byte length) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) Reject.H.invokeExact(st, id, data, length);
            Native.checkErrno("rdma_reject", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void notify(MemorySegment id, int ibvEventType) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) Notify.H.invokeExact(st, id, ibvEventType);
            Native.checkErrno("rdma_notify", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void disconnect(long id) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) Disconnect.H.invokeExact(st, id);
            Native.checkErrno("rdma_disconnect", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void joinMulticast(MemorySegment id, MemorySegment addr) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) JoinMulticast.H.invokeExact(st, id, addr, MemorySegment.NULL);
            Native.checkErrno("rdma_join_multicast", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** rdma_join_multicast_ex with {@code attr} (a filled struct rdma_cm_join_mc_attr_ex) and a NULL context. */
    public static void joinMulticastEx(MemorySegment id, MemorySegment attr) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) JoinMulticastEx.H.invokeExact(st, id, attr, MemorySegment.NULL);
            Native.checkErrno("rdma_join_multicast_ex", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void leaveMulticast(MemorySegment id, MemorySegment addr) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) LeaveMulticast.H.invokeExact(st, id, addr);
            Native.checkErrno("rdma_leave_multicast", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * rdma_get_cm_event into {@code out} (a pointer cell, at {@code outAddress}: the channel keeps both,
     * and the cell is read through after the call, which keeps it alive across it). Returns the
     * event's address, or 0 when the channel is non-blocking and empty (EAGAIN). Blocking if the
     * channel fd is blocking. An address, not a segment: a segment per event (the AddressLayout
     * read's {@code longToAddress}, its checks) was the larger part of this call's Java cost under
     * C1; CmEventChannel reads the event's fields by address and acks it by address.
     *
     * <p>Not critical, although the dispatcher's channel is non-blocking: each call is a write(2) of
     * a command to the rdma_cm device, and for an event librdmacm then processes it in the call
     * (ADDR_RESOLVED, ROUTE_RESOLVED and CONNECT_REQUEST query the kernel again, a CONNECT_RESPONSE
     * moves the QP with ibv_modify_qp, a new id's device may be opened) under librdmacm's mutexes,
     * which another thread (an application's rdma_get_devices, a destroy) may hold. A critical call
     * holds off every safepoint, so every other thread's GC, for as long as that takes. The errno
     * capture stays too: EAGAIN is how an empty channel answers (once per drain), so calling without
     * capture first and again with it after a failure (as ibv_get_cq_event and epoll_wait do, whose
     * failures are rare) would make that answer two system calls. A read the caller expects to find
     * an event, because epoll has just reported the channel readable, is {@link #getReadyCmEvent}'s.
     */
    public static long getCmEvent(long ch, long outAddress, MemorySegment out) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) GetCmEvent.H.invokeExact(st, ch, outAddress);
            if (rc != 0) {
                if (Errno.read(st) == Libc.EAGAIN) {
                    return 0L;
                }
                throw Native.errnoFailure("rdma_get_cm_event", st);
            }
            return out.get(JAVA_LONG_UNALIGNED, 0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * {@link #getCmEvent} for a read that almost always finds an event: the first after epoll reported
     * the channel readable. Made without errno capture (the JDK's checks of the capture segment, ~270
     * instructions under C1, and the VM's errno copy); only a failure is made again with capture to
     * learn errno. Safe to repeat: librdmacm returns -1 only when its write(2) of the GET_EVENT
     * command failed, before any event was taken (an event taken and then dropped inside librdmacm
     * makes it read again, not fail), so the second call sees the channel as the first did, or with
     * an event that arrived in between, which it returns like any other.
     */
    public static long getReadyCmEvent(long ch, long outAddress, MemorySegment out) {
        try {
            if ((int) GetCmEventPlain.H.invokeExact(ch, outAddress) == 0) {
                return out.get(JAVA_LONG_UNALIGNED, 0);
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        return getCmEvent(ch, outAddress, out);
    }

    public static void ackCmEvent(long event) {
        try {
            int rc = (int) AckCmEvent.H.invokeExact(event);
            if (rc != 0) {
                throw Native.failure("rdma_ack_cm_event", Libc.EINVAL);   // its only failure (see AckCmEvent)
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** Network byte order, as the C function returns it. */
    public static short srcPort(MemorySegment id) {
        try {
            return (short) GetSrcPort.H.invokeExact(id);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** Network byte order, as the C function returns it. */
    public static short dstPort(MemorySegment id) {
        try {
            return (short) GetDstPort.H.invokeExact(id);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** NULL-terminated array of ibv_context pointers; {@code count} receives the length. */
    public static MemorySegment getDevices(MemorySegment count) {
        try {
            MemorySegment st = Errno.state();
            MemorySegment list = (MemorySegment) GetDevices.H.invokeExact(st, count);
            return Native.checkPointer("rdma_get_devices", list, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void freeDevices(long list) {
        try {
            FreeDevices.H.invokeExact(list);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static String eventStr(int event) {
        try {
            return Native.string((MemorySegment) EventStr.H.invokeExact(event), 256);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void setOption(MemorySegment id, int level, int name, MemorySegment value) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) SetOption.H.invokeExact(st, id, level, name, value, value.byteSize());
            Native.checkErrno("rdma_set_option", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void migrateId(MemorySegment id, MemorySegment channel) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) MigrateId.H.invokeExact(st, id, channel);
            Native.checkErrno("rdma_migrate_id", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static void initQpAttr(MemorySegment id, MemorySegment qpAttr, MemorySegment mask) {
        try {
            MemorySegment st = Errno.state();
            int rc = (int) InitQpAttr.H.invokeExact(st, id, qpAttr, mask);
            Native.checkErrno("rdma_init_qp_attr", rc, st);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
