package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * CmLib and IbvLib link each downcall in its own holder class on first use (issue 21 item 3).
 * First: calling one function links that one and not its neighbours. Then, since nothing links at
 * class initialisation any more, every holder is linked once here, so a misspelt symbol or a bad
 * descriptor still fails on the build machine (the libraries are installed there) rather than at a
 * user's first call.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LazyLinkingTest {

    @Test
    @Order(1)
    void callingOneFunctionLinksThatOneOnly() {
        assertThat(CmLib.eventStr(4)).isEqualTo("RDMA_CM_EVENT_CONNECT_REQUEST");
        assertThat(Native.linkedFunctions()).contains("rdma_event_str")
                // no host test calls these (they need a device): still unlinked although CmLib and IbvLib are loaded
                .doesNotContain("rdma_join_multicast_ex", "rdma_leave_multicast", "ibv_create_srq", "ibv_create_ah_from_wc");
    }

    @Test
    @Order(2)
    void everyHolderLinksAndHoldsOneStaticFinalHandle() throws Exception {
        int linked = 0;
        for (Class<?> lib : List.of(CmLib.class, IbvLib.class)) {
            for (Class<?> holder : lib.getDeclaredClasses()) {
                Field h = holder.getDeclaredField("H");
                assertThat(Modifier.isStatic(h.getModifiers()) && Modifier.isFinal(h.getModifiers()))
                        .as(holder.getName()).isTrue();
                h.setAccessible(true);
                assertThat(h.get(null)).as(holder.getName()).isInstanceOf(MethodHandle.class);
                linked++;
            }
        }
        assertThat(linked).isEqualTo(29 + 35);
        assertThat(Native.linkedFunctions()).contains("rdma_join_multicast_ex", "ibv_create_srq", "ibv_get_cq_event");
    }
}
