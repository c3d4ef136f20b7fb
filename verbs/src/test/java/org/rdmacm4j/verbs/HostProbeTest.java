package org.rdmacm4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.cm.CmEventChannel;

/** What the host (libraries installed, kernel without RDMA) must report. */
class HostProbeTest {

    @Test
    void probeSaysNoDeviceWithTheRxeHint() {
        Rdma.Probe p = Rdma.probe();
        System.out.println("probe: " + p);
        assertThat(p.available()).isFalse();
        assertThat(p.missing()).isEqualTo(Rdma.Missing.DEVICE);
        assertThat(p.cause()).contains("no RDMA device").contains("rdma link add rxe0 type rxe netdev");
        assertThat(Rdma.isAvailable()).isFalse();
        assertThat(Rdma.unavailabilityCause()).isEqualTo(p.cause());
        assertThatThrownBy(Rdma::ensureAvailability).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("no RDMA device");
    }

    @Test
    void eventChannelWithoutKernelSupportIsARealErrno() {
        assertThatThrownBy(CmEventChannel::create)
                .isInstanceOfSatisfying(RdmaException.class, e -> {
                    System.out.println("host create_event_channel: " + e.getMessage());
                    assertThat(e.function()).isEqualTo("rdma_create_event_channel");
                    assertThat(e.errno()).isPositive();
                    assertThat(e.errnoName()).startsWith("E").doesNotStartWith("E?");
                    assertThat(e.strerror()).isNotBlank();
                    assertThat(e.getMessage()).contains(e.errnoName()).contains(e.strerror());
                });
    }
}
