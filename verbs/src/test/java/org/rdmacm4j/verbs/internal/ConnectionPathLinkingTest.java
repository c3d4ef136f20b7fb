package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.Rdma;

/**
 * {@link Linking#linkConnectionPath()} links, without a device, the functions a connection's life
 * calls (what PrelinkIT finds a fresh JVM's first connection, a message each way and its close link in
 * the guest), so that cm-core's background linker leaves none for the dispatcher or the poller.
 */
class ConnectionPathLinkingTest {

    @Test
    void linksEveryFunctionOfAConnectionsLife() {
        int linked = Rdma.linkConnectionPath();

        assertThat(Native.linkedFunctions()).hasSize(linked).contains(
                // the listener
                "rdma_create_id", "rdma_bind_addr", "rdma_listen",
                // the first connection, both ends
                "rdma_resolve_addr", "rdma_get_cm_event", "rdma_ack_cm_event", "rdma_resolve_route",
                "ibv_query_device", "ibv_alloc_pd", "ibv_create_comp_channel", "ibv_create_cq",
                "ibv_context_ops.poll_cq", "ibv_context_ops.req_notify_cq", "ibv_context_ops.post_send",
                "ibv_reg_mr", "rdma_create_qp", "rdma_connect", "rdma_accept",
                // the poller, for a connection with messages
                "ibv_get_cq_event", "ibv_ack_cq_events",
                // its close
                "rdma_disconnect", "ibv_modify_qp", "rdma_destroy_qp", "rdma_destroy_id",
                "ibv_dereg_mr", "ibv_destroy_cq", "ibv_destroy_comp_channel", "ibv_dealloc_pd");
    }

    @Test
    void isIdempotent() {
        Linking.Result first = Linking.linkConnectionPath();
        Linking.Result again = Linking.linkConnectionPath();

        assertThat(first.failures()).isEmpty();
        assertThat(again).isEqualTo(first);
    }
}
