package org.rdmacm4j.cm.core.internal.nativeport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.Rdma;

/**
 * The background linker runs once per process, as a daemon, runs what it was given (the warm-up)
 * once the functions of a connection's life are linked, and ends (the libraries are installed on
 * the build machine; no device is needed to link).
 */
class PrelinkerTest {

    @Test
    void startsOnceAsADaemonAndEndsWithTheSetupLinked() throws Exception {
        var ranAfterLinking = new java.util.concurrent.CompletableFuture<String>();
        Thread linker = Prelinker.startOnce(() -> ranAfterLinking.complete(
                Thread.currentThread().getName() + " after " + Prelinker.outcome()));

        assertThat(linker).isNotNull();
        assertThat(linker.isDaemon()).isTrue();
        assertThat(linker.getName()).isEqualTo("rdmacm4j-prelink");
        assertThat(Prelinker.startOnce(() -> { throw new AssertionError("a second warm-up ran"); }))
                .as("a second RdmaCm finds it started").isNull();
        assertThat(linker.join(java.time.Duration.ofSeconds(60))).as("linker done within 60 s").isTrue();
        assertThat(Prelinker.outcome()).as("the linker's outcome").startsWith("linked ");
        // Everything it was to link is linked: linking the path again links nothing new.
        int linked = Integer.parseInt(Prelinker.outcome().substring("linked ".length()));
        // At least the path's own functions (28 when this test runs alone; more when other tests of
        // this JVM linked others first: the count is the process's, so a bound above the path's
        // made this test pass only after them).
        assertThat(Rdma.linkConnectionPath()).isEqualTo(linked).isGreaterThanOrEqualTo(28);
        assertThat(Rdma.linkedFunctions()).as("a connection's first and last calls, linked ahead")
                .contains("rdma_create_id", "rdma_resolve_addr", "rdma_get_cm_event", "rdma_connect", "rdma_accept",
                        "ibv_create_cq", "rdma_create_qp", "rdma_disconnect", "rdma_destroy_qp", "rdma_destroy_id");
        assertThat(ranAfterLinking).as("what runs after linking, on the linker thread")
                .isCompletedWithValue("rdmacm4j-prelink after linked " + linked);
    }
}
