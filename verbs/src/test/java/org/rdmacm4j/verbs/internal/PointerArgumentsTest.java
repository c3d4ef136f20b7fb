package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The downcalls a connection makes take their pointers as longs ({@link Native#POINTER}), and the
 * ones whose memory is the caller's keep segments: a handle linked back with {@code ADDRESS} would
 * still work, only slower again, so nothing else would notice. Links the handles (no call), as
 * {@link ConnectionPathLinkingTest} does.
 */
class PointerArgumentsTest {

    /** Each handle with how many leading segments it takes that are not C arguments (capture state, target). */
    private static Map<String, Handle> connectionPath() throws ReflectiveOperationException {
        Map<String, Handle> m = new LinkedHashMap<>();
        m.put("rdma_create_id", new Handle(CmLib.CreateId.H, 1));
        m.put("rdma_bind_addr", new Handle(CmLib.BindAddr.H, 1));
        m.put("rdma_listen", new Handle(CmLib.Listen.H, 1));
        m.put("rdma_resolve_addr", new Handle(CmLib.ResolveAddr.H, 1));
        m.put("rdma_resolve_route", new Handle(CmLib.ResolveRoute.H, 1));
        m.put("rdma_get_cm_event", new Handle(CmLib.GetCmEvent.H, 1));
        m.put("rdma_get_cm_event (plain)", new Handle(CmLib.GetCmEventPlain.H, 0));
        m.put("rdma_ack_cm_event", new Handle(CmLib.AckCmEvent.H, 0));
        m.put("rdma_create_qp", new Handle(CmLib.CreateQp.H, 1));
        m.put("rdma_connect", new Handle(CmLib.Connect.H, 1));
        m.put("rdma_accept", new Handle(CmLib.Accept.H, 1));
        m.put("rdma_disconnect", new Handle(CmLib.Disconnect.H, 1));
        m.put("rdma_destroy_qp", new Handle(CmLib.DestroyQp.H, 0));
        m.put("rdma_destroy_id", new Handle(CmLib.DestroyId.H, 1));
        m.put("rdma_destroy_event_channel", new Handle(CmLib.DestroyEventChannel.H, 0));
        m.put("rdma_free_devices", new Handle(CmLib.FreeDevices.H, 0));
        m.put("ibv_create_comp_channel", new Handle(IbvLib.CreateCompChannel.H, 1));
        m.put("ibv_create_cq", new Handle(IbvLib.CreateCq.H, 1));
        m.put("ibv_get_cq_event (capturing)", new Handle(IbvLib.GetCqEvent.H, 1));
        m.put("ibv_modify_qp", new Handle(IbvLib.ModifyQp.H, 0));
        m.put("ibv_destroy_cq", new Handle(IbvLib.DestroyCq.H, 0));
        m.put("ibv_destroy_comp_channel", new Handle(IbvLib.DestroyCompChannel.H, 0));
        m.put("ibv_dealloc_pd", new Handle(IbvLib.DeallocPd.H, 0));
        m.put("ibv_dereg_mr", new Handle(IbvLib.DeregMr.H, 0));
        m.put("ibv_context_ops.req_notify_cq", new Handle(OpsTable.REQ_NOTIFY_CQ, 1));
        m.put("epoll_ctl", new Handle(sysLib("EPOLL_CTL"), 1));
        m.put("epoll_wait", new Handle(sysLib("EPOLL_WAIT_PLAIN"), 0));
        m.put("read", new Handle(sysLib("READ"), 0));
        m.put("write", new Handle(sysLib("WRITE"), 0));
        return m;
    }

    private record Handle(MethodHandle h, int leadingSegments) { }

    @Test
    void aConnectionsCallsTakePointersAsLongs() throws ReflectiveOperationException {
        connectionPath().forEach((name, handle) -> {
            List<Class<?>> params = handle.h().type().parameterList();
            for (int i = 0; i < handle.leadingSegments(); i++) {
                assertThat(params.get(i)).as(name + " parameter " + i + " (capture state or target)")
                        .isEqualTo(MemorySegment.class);
            }
            assertThat(params.subList(handle.leadingSegments(), params.size())).as(name + "'s C arguments")
                    .doesNotContain(MemorySegment.class).isNotEmpty();
        });
    }

    @Test
    void callsOnTheCallersMemoryKeepSegments() {
        // (target, cq, num_entries, wc) and (target, qp, wr, bad_wr): the arrays' session acquire keeps
        // their arenas from being closed during the call
        assertThat(OpsTable.POLL_CQ.type()).isEqualTo(MethodType.methodType(int.class, MemorySegment.class,
                MemorySegment.class, int.class, MemorySegment.class));
        assertThat(OpsTable.POST_SEND.type().parameterList()).containsOnly(MemorySegment.class);
        assertThat(IbvLib.RegMr.H.type().parameterType(2)).as("ibv_reg_mr's buffer").isEqualTo(MemorySegment.class);
    }

    private static MethodHandle sysLib(String field) throws ReflectiveOperationException {
        Field f = SysLib.class.getDeclaredField(field);
        f.setAccessible(true);
        return (MethodHandle) f.get(null);
    }
}
