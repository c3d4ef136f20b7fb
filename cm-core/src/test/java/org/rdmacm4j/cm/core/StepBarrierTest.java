package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.FakeCmPort;

/** A step barrier's places are checked in the caller's thread, before anything is queued. */
class StepBarrierTest {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);

    @Test
    void partiesMustBePositive() {
        assertThatThrownBy(() -> new StepBarrier(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }

    @Test
    void moreConnectsThanPlacesOrASecondRdmaCmAreRefusedBeforeAnyNativeCall() {
        FakeCmPort port = new FakeCmPort();
        FakeCmPort other = new FakeCmPort();
        StepBarrier b = new StepBarrier(1);
        ConnectOptions o = ConnectOptions.builder().stepBarrier(b).build();
        try (RdmaCm cm = RdmaCm.builder().port(port).closeTimeout(Duration.ofSeconds(5)).build();
             RdmaCm cm2 = RdmaCm.builder().port(other).closeTimeout(Duration.ofSeconds(5)).build()) {
            assertThat(cm.connect(SERVER, o, ConnectionHandler.none())).succeedsWithin(Duration.ofSeconds(5));
            assertThat(b.joined()).isEqualTo(1);
            int calls = port.calls().size();
            assertThatThrownBy(() -> cm.connect(SERVER, o, ConnectionHandler.none()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 places are all taken");
            assertThat(port.calls()).hasSize(calls);
            // A barrier's connects all run on one dispatcher: a second RdmaCm is refused.
            ConnectOptions two = ConnectOptions.builder().stepBarrier(new StepBarrier(2)).timeout(Duration.ofSeconds(1))
                    .build();
            var pending = cm.connect(SERVER, two, ConnectionHandler.none());
            assertThatThrownBy(() -> cm2.connect(SERVER, two, ConnectionHandler.none()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another RdmaCm");
            assertThat(other.calls()).isEmpty();
            pending.cancel(true);
        }
    }
}
