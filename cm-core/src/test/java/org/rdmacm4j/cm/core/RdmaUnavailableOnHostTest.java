package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.Rdma;

/**
 * On the host (libraries installed, kernel without RDMA): {@link RdmaCm#open()} throws the typed
 * {@link RdmaUnavailableException}, one line that says what is missing and names the doctor,
 * instead of the verbs module's bare {@code rdma_create_event_channel failed: ENODEV}.
 */
class RdmaUnavailableOnHostTest {

    @Test
    void openThrowsTheTypedExceptionNamingTheDoctor() {
        RdmaUnavailableException e = catchThrowableOfType(RdmaUnavailableException.class, RdmaCm::open);
        System.out.println("host RdmaCm.open(): " + e.getMessage());
        assertThat(e).as("RdmaCm.open() on a host without RDMA").isNotNull().isInstanceOf(RdmaCmException.class);
        assertThat(e.missing()).isEqualTo(RdmaUnavailableException.Missing.DEVICE);
        assertThat(e.getMessage()).startsWith("RDMA is not available on this machine: ")
                .contains("no RDMA device")
                .contains("rdma link add rxe0 type rxe netdev")
                .contains("run examples/bin/doctor")
                .contains("-m org.rdmacm4j.cm.core/org.rdmacm4j.cm.core.doctor.Doctor")
                .contains(RdmaUnavailableException.DOCTOR)
                .doesNotContain("\n");
        assertThat(e.problem()).isNotBlank().doesNotContain("doctor");
        assertThat(e.history()).isEmpty();
        assertThat(e.getCause()).as("the original failure is kept").isNotNull();
        assertThat(Rdma.liveObjects()).as("nothing native left open").isEmpty();
    }

    @Test
    void theBuilderThrowsItToo() {
        RdmaUnavailableException e = catchThrowableOfType(RdmaUnavailableException.class,
                () -> RdmaCm.builder().pollerThreads(2).closeTimeout(Duration.ofSeconds(1)).build());
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).contains("examples/bin/doctor");
    }

    @Test
    void theMessageIsOneLineWhateverTheProblemSays() {
        RdmaUnavailableException e = new RdmaUnavailableException(RdmaUnavailableException.Missing.LIBRARY,
                "librdmacm.so.1 could not be loaded\n  (install librdmacm1).", null);
        assertThat(e.getMessage()).isEqualTo("RDMA is not available on this machine: librdmacm.so.1 could not be"
                + " loaded (install librdmacm1). To see what is missing and how to fix it, run "
                + RdmaUnavailableException.DOCTOR);
        assertThat(e.missing()).isEqualTo(RdmaUnavailableException.Missing.LIBRARY);
    }
}
