package org.rdmacm4j.verbs.internal;

import java.lang.invoke.MethodHandle;

/**
 * Links one {@code invokeExact} call site of each shape the bindings' downcall handles have, without
 * calling anything: what a process's first call through each handle otherwise does on the thread that
 * makes it (the dispatcher, inside the first connection).
 *
 * <p>Why: the JVM links a {@code MethodHandle.invokeExact} call site when it first runs, and the JDK
 * makes that call site's linker from its <em>basic</em> type (every reference an Object, subword
 * primitives int), two lambda-form classes per new basic type, cached for every later call site of
 * the same shape. Linking a downcall ({@link Linking}) makes the handle, not its call sites; the
 * first connection reached about a dozen new shapes at its first calls. Running one call site per
 * shape here, on the linker thread or in the AOT cache's training run (which then keeps them),
 * leaves the first connection none to make.
 *
 * <p>How: each call site below has the basic type of one or more handles (named beside it) and
 * calls a null handle. The JVM links the site before it can see the receiver, then throws
 * {@link NullPointerException}, which is expected and dropped: no target, native or Java, runs.
 * {@code CallSiteShapesTest} fails naming any handle of the bindings whose shape has no site here.
 *
 * <p>Any thread; idempotent (a site links once per JVM; later runs only throw and catch).
 */
final class CallSiteShapes {
    private CallSiteShapes() { }

    /** Links every shape's call site; returns how many sites ran. */
    @SuppressWarnings({"unused", "DataFlowIssue"})
    static int link() {
        final MethodHandle none = null;
        int sites = 0;
        // (Object)Object: rdma_create_event_channel (capture state), ibv_get_device_name
        try { Object r = (Object) none.invokeExact((Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object)int: rdma_get_src_port, rdma_get_dst_port, ibv_destroy_qp/ah/srq
        try { int r = (int) none.invokeExact((Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object)void: ibv_free_device_list, ibv_ack_async_event
        try { none.invokeExact((Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object)Object: ibv_alloc_pd, ibv_open_device, device lists
        try { Object r = (Object) none.invokeExact((Object) null, (Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object)int: ibv_close_device, ibv_query_device
        try { int r = (int) none.invokeExact((Object) null, (Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,Object)Object: ibv_create_qp, ibv_create_ah, ibv_create_srq
        try { Object r = (Object) none.invokeExact((Object) null, (Object) null, (Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,Object)int: rdma_leave_multicast, rdma_migrate_id, ibv_get_cq_event, ibv_get_async_event
        try { int r = (int) none.invokeExact((Object) null, (Object) null, (Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,Object,Object)int: rdma_join_multicast(_ex), rdma_init_qp_attr, post_send/post_recv
        try { int r = (int) none.invokeExact((Object) null, (Object) null, (Object) null, (Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,Object,Object,int)Object: ibv_create_ah_from_wc
        try { Object r = (Object) none.invokeExact((Object) null, (Object) null, (Object) null, (Object) null, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,Object,int)int: rdma_reject
        try { int r = (int) none.invokeExact((Object) null, (Object) null, (Object) null, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,Object,long,int)Object: ibv_reg_mr
        try { Object r = (Object) none.invokeExact((Object) null, (Object) null, (Object) null, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,Object,long,long,int)Object: ibv_reg_mr_iova2
        try { Object r = (Object) none.invokeExact((Object) null, (Object) null, (Object) null, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,int)int: rdma_notify, ibv_modify_srq, open(2)
        try { int r = (int) none.invokeExact((Object) null, (Object) null, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,int,Object)int: poll_cq, ibv_query_qp
        try { int r = (int) none.invokeExact((Object) null, (Object) null, 0, (Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,int,Object,long)int: the port query through verbs_context
        try { int r = (int) none.invokeExact((Object) null, (Object) null, 0, (Object) null, 0L); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,int,int,Object)int: ibv_query_gid
        try { int r = (int) none.invokeExact((Object) null, (Object) null, 0, 0, (Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,int,int,Object,long)int: rdma_set_option
        try { int r = (int) none.invokeExact((Object) null, (Object) null, 0, 0, (Object) null, 0L); } catch (Throwable e) { sites += expected(e); }
        // (Object,Object,long,int)int: poll(2)
        try { int r = (int) none.invokeExact((Object) null, (Object) null, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,int)int: epoll_create1, close(2) (capture state)
        try { int r = (int) none.invokeExact((Object) null, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,int)void: ibv_ack_cq_events
        try { none.invokeExact((Object) null, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,int,Object)int: ibv_query_port
        try { int r = (int) none.invokeExact((Object) null, 0, (Object) null); } catch (Throwable e) { sites += expected(e); }
        // (Object,int,int)int: eventfd, fcntl(F_GETFL)
        try { int r = (int) none.invokeExact((Object) null, 0, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,int,int,int)int: fcntl(F_SETFL), dup3
        try { int r = (int) none.invokeExact((Object) null, 0, 0, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,int,int,int,long)int: epoll_ctl
        try { int r = (int) none.invokeExact((Object) null, 0, 0, 0, 0L); } catch (Throwable e) { sites += expected(e); }
        // (Object,int,long,int,int)int: epoll_wait (capture state)
        try { int r = (int) none.invokeExact((Object) null, 0, 0L, 0, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,int,long,long)long: read(2), write(2)
        try { long r = (long) none.invokeExact((Object) null, 0, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (Object,long)Object: ibv_create_comp_channel
        try { Object r = (Object) none.invokeExact((Object) null, 0L); } catch (Throwable e) { sites += expected(e); }
        // (Object,long)int: rdma_destroy_id, rdma_disconnect
        try { int r = (int) none.invokeExact((Object) null, 0L); } catch (Throwable e) { sites += expected(e); }
        // (Object,long,int)int: rdma_listen, rdma_resolve_route, req_notify_cq
        try { int r = (int) none.invokeExact((Object) null, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,long,int,long,long,int)Object: ibv_create_cq
        try { Object r = (Object) none.invokeExact((Object) null, 0L, 0, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (Object,long,long)int: rdma_bind_addr, rdma_connect, rdma_accept, rdma_get_cm_event
        try { int r = (int) none.invokeExact((Object) null, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (Object,long,long,long)int: rdma_create_qp, ibv_get_cq_event (capture state)
        try { int r = (int) none.invokeExact((Object) null, 0L, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (Object,long,long,long,int)int: rdma_create_id, rdma_resolve_addr
        try { int r = (int) none.invokeExact((Object) null, 0L, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (int)Object: the *_str functions, strerror
        try { Object r = (Object) none.invokeExact(0); } catch (Throwable e) { sites += expected(e); }
        // (int)int: close(2)
        try { int r = (int) none.invokeExact(0); } catch (Throwable e) { sites += expected(e); }
        // (int,long,int,int)int: epoll_wait
        try { int r = (int) none.invokeExact(0, 0L, 0, 0); } catch (Throwable e) { sites += expected(e); }
        // (int,long,long)long: read(2), write(2) (SysLib's first tries)
        try { long r = (long) none.invokeExact(0, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // The JDK's own call into each native stub, at the first call through the handle: the
        // target's address, then every argument as the stub takes it (an address as a long), the
        // result likewise. Named by the holders whose handles have that raw shape.
        // (long,int,long,long)long: SysLib's read(2), write(2)
        try { long r = (long) none.invokeExact(0L, 0, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,int)int: DevNull
        try { int r = (int) none.invokeExact(0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long)int: AckCmEvent (the event by address); DeallocPd, DeregMr, DestroyCompChannel, DestroyCq (pointers as longs)
        try { int r = (int) none.invokeExact(0L); } catch (Throwable e) { sites += expected(e); }
        // (long)void: DestroyEventChannel, DestroyQp, FreeDevices (pointers as longs)
        try { none.invokeExact(0L); } catch (Throwable e) { sites += expected(e); }
        // (long,int)long: EventStr, WcStatusStr, EventTypeStr, Strerror
        try { long r = (long) none.invokeExact(0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,int,long,int,int)int: SysLib
        try { int r = (int) none.invokeExact(0L, 0, 0L, 0, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long)int: GetCmEventPlain, GetSrcPort, GetDstPort, DeallocPd, DeregMr, DestroyCompChannel, DestroyCq and more
        try { int r = (int) none.invokeExact(0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long)long: CreateEventChannel, GetDeviceName
        try { long r = (long) none.invokeExact(0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long)void: DestroyEventChannel, DestroyQp, FreeDevices, AckAsyncEvent, FreeDeviceList
        try { none.invokeExact(0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,int)int: ModifyQp (pointers as longs); SysLib, Libc raw
        try { int r = (int) none.invokeExact(0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,int)void: AckCqEvents
        try { none.invokeExact(0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,int,int)int: SysLib, Libc
        try { int r = (int) none.invokeExact(0L, 0L, 0, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,int,int,int)int: Libc, DevNull
        try { int r = (int) none.invokeExact(0L, 0L, 0, 0, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,int,int,int,long)int: SysLib
        try { int r = (int) none.invokeExact(0L, 0L, 0, 0, 0, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,int,long)int: QueryPortCompat
        try { int r = (int) none.invokeExact(0L, 0L, 0, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,int,long,int,int)int: EpollWaitCapturing
        try { int r = (int) none.invokeExact(0L, 0L, 0, 0L, 0, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,int,long,long)long: SysLib
        try { long r = (long) none.invokeExact(0L, 0L, 0, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long)int: DestroyId, Disconnect, CloseDevice, QueryDevice
        try { int r = (int) none.invokeExact(0L, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long)long: GetDevices, OpenDevice, AllocPd, CreateCompChannel, GetDeviceList
        try { long r = (long) none.invokeExact(0L, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,int)int: ResolveRoute, Listen, Notify, ModifyQp, ModifySrq, OpsTable and more
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,int,int,long)int: QueryGid
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0, 0, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,int,int,long,long)int: SetOption
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0, 0, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,int,long)int: QueryQp, OpsTable
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,int,long,long)int: QueryPortOp
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,int,long,long,int)long: CreateCq
        try { long r = (long) none.invokeExact(0L, 0L, 0L, 0, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,long)int: BindAddr, Connect, Accept, LeaveMulticast, GetCmEvent, MigrateId and more
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,long)long: CreateQp, CreateAh, CreateSrq
        try { long r = (long) none.invokeExact(0L, 0L, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,long,int)int: Reject, Poll
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,long,long)int: CreateQp, JoinMulticast, JoinMulticastEx, InitQpAttr, GetCqEvent, OpsTable
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0L, 0L); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,long,long,int)int: CreateId, ResolveAddr
        try { int r = (int) none.invokeExact(0L, 0L, 0L, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,long,long,int)long: RegMr, CreateAhFromWc
        try { long r = (long) none.invokeExact(0L, 0L, 0L, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        // (long,long,long,long,long,long,int)long: RegMrIova2
        try { long r = (long) none.invokeExact(0L, 0L, 0L, 0L, 0L, 0L, 0); } catch (Throwable e) { sites += expected(e); }
        return sites;
    }

    /** 1 for the NullPointerException every site ends in; anything else is a bug here, rethrown. */
    private static int expected(Throwable e) {
        if (e instanceof NullPointerException) {
            return 1;
        }
        if (e instanceof Error err) {
            throw err;
        }
        throw new IllegalStateException("a call site shape threw " + e, e);
    }
}
