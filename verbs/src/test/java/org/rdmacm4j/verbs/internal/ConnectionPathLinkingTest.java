package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.Rdma;

/**
 * {@link Linking#linkConnectionPath()} links, without a device, the functions a connection's life
 * calls (the list ColdSplit's {@code linked_names} measured in the guest: the listener's, the first
 * connection's and its close's), so that cm-core's background linker leaves none for the dispatcher.
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
                "rdma_create_qp", "rdma_connect", "rdma_accept",
                // its close
                "rdma_disconnect", "rdma_destroy_qp", "rdma_destroy_id");
    }

    @Test
    void isIdempotent() {
        Linking.Result first = Linking.linkConnectionPath();
        Linking.Result again = Linking.linkConnectionPath();

        assertThat(first.failures()).isEmpty();
        assertThat(again).isEqualTo(first);
    }
}
