package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmacm4j.verbs.Rdma;

/**
 * The cold-start training on the host, which has no RDMA device: it links the downcalls (the
 * libraries are installed on every build machine), loads the library's classes and runs its
 * connections over the in-memory port to a clean close; twice in one JVM (the build's training
 * and a check run may share nothing, but an application calling it twice must not break).
 */
class ColdStartTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void trainsWithoutADevice() {
        assertThat(Rdma.probe().missing()).as("the host has no RDMA device").isEqualTo(Rdma.Missing.DEVICE);
        ColdStart.Report first = ColdStart.train(60);
        assertThat(first.linkProblem()).isNull();
        // every function the bindings declare (CmLib, IbvLib, libc), not only those a connection calls
        assertThat(first.linkedFunctions()).isGreaterThanOrEqualTo(60);
        assertThat(first.classesLoaded()).isGreaterThan(300);
        assertThat(first.connections()).isEqualTo(60);

        ColdStart.Report again = ColdStart.train(3);
        assertThat(again.linkedFunctions()).isEqualTo(first.linkedFunctions());
        assertThat(again.toString()).startsWith("cold-start training: ").contains("3 connections");
    }

    @Test
    void rejectsNoConnections() {
        assertThatThrownBy(() -> ColdStart.train(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }
}
